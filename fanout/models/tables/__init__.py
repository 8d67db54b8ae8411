"""Tables that the rules of fanout/models count, check and write (caps, lifecycle, events).

A table module defines its rows and imports only `db`, `workspace` and other tables; the
operations that add rows under a rule (`account.connect_account`, `api_key.create_key`,
`webhook.create_webhook`) import their table and the rule, never the other way round
(tests/test_model_imports.py holds the package to no import cycle).
"""
