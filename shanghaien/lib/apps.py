from django.apps import AppConfig


class KernelConfig(AppConfig):
    """The shared kernel: no models, only the project's own system checks."""

    name = "shanghaien.lib"
    label = "kernel"

    def ready(self):
        from . import checks  # noqa: F401  (registers them)
