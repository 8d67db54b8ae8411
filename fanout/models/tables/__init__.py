"""The tables of fanout/models: one module a table, named as the table is, holding its rows'
fields, indexes and what reads a row (`Target.saved_state`, `Workspace.limits`).

A table module imports only `db` and other tables. The rules that count, check and write
rows (caps, lifecycle, events) and the operations that add rows under them
(`account.connect_account`, `api_key.create_key`, `webhook.create_webhook`) are the other
modules of fanout/models: they import their tables, never the other way round
(tests/test_model_imports.py holds the package to it, and to no import cycle).
"""
