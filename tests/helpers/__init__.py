"""Plain functions the tests import (fixtures are in tests/conftest.py)."""
