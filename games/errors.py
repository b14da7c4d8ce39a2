"""The service layer's typed errors (they live in the shared kernel, shanghaien.lib)."""

from shanghaien.lib.errors import (  # noqa: F401
    BadRequest,
    Conflict,
    Forbidden,
    Illegal,
    NotAuthenticated,
    NotFound,
    RateLimited,
    ServiceError,
    TooLarge,
)
