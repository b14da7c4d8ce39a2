"""Notifications, as one slice: what happened, who wants to hear of it and how, the
words, and the delivery.

- ``kinds``: the table of the kinds of notification, the one place a kind is declared;
  everything below is derived from it;
- ``preferences``: each player's choices (stored on their account, which keeps them
  as opaque data), ``wants``, the unsubscribe links and the settings page's form;
- ``queue``: what the services call when something happens: it writes the outbox rows
  (``models.Notification``) the player's choices ask for;
- ``mail`` and ``push``: the words of an email and of a push notification, one
  function a kind each, composed when sent;
- ``writers``: the words of a kind an app above games writes (tournaments), registered
  by that app, so that games never imports it;
- ``send``: the worker's delivery of the outbox: claiming rows, retries, failures;
- ``views`` and ``admin``: the preferences page, the unsubscribe link, the admin.

Adding a kind: a row in ``kinds.KINDS``, its compose function in ``mail`` (and ``push``
if it is pushed), then ``makemigrations`` (the outbox's choices), and a call to
``queue.tell`` where it happens. A kind of an app above games registers its compose
functions in ``writers`` instead.
"""
