"""Print a new key pair for push notifications, in the environment's form."""

from django.core.management.base import BaseCommand
from py_vapid import Vapid02

from shanghaien.lib import webpush


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair for push notifications: set VAPID_PRIVATE_KEY to the "
        "private key (docs/operations.md says how to rotate it)."
    )

    def handle(self, *args, **options):
        vapid = Vapid02()
        vapid.generate_keys()
        number = vapid.private_key.private_numbers().private_value
        private = webpush.b64url(number.to_bytes(32, "big"))
        self.stdout.write(f"VAPID_PRIVATE_KEY={private}")
        # the public key follows from the private one; browsers are given it by the site
        self.stdout.write(f"# public key: {webpush.public_key_of(vapid)}")
