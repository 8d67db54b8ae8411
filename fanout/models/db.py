"""The database handle and the transaction rules shared by every model.

`db` is a proxy bound by `open_database` at start. SQLite gets WAL and a busy timeout;
its write transactions start with BEGIN IMMEDIATE so two writers queue on the lock
instead of failing at the read-to-write upgrade. PostgreSQL serialises writers with row
locks (`locked`).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from urllib.parse import parse_qsl, unquote, urlsplit

from peewee import AutoField, DatabaseProxy, Model, ModelObjectCursorWrapper, Value
from playhouse.pool import PooledPostgresqlDatabase, PooledSqliteDatabase

from ..datadir import private_file
from ..settings import sqlite_path

db = DatabaseProxy()

SQLITE_PRAGMAS = {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 10000, "synchronous": "normal"}


class BaseModel(Model):
    class Meta:
        database = db
        legacy_table_names = False


def open_database(url: str, *, max_connections: int = 32):
    """A pooled Peewee database for a sqlite:/// or postgresql:// URL."""
    if url.startswith("sqlite:"):
        path = private_file(sqlite_path(url))
        return PooledSqliteDatabase(
            str(path), pragmas=SQLITE_PRAGMAS, timeout=10, max_connections=max_connections, stale_timeout=300,
            # Pooled connections move between threads, one thread at a time.
            check_same_thread=False,
        )
    parts = urlsplit(url)
    options = dict(parse_qsl(parts.query))
    return PooledPostgresqlDatabase(
        unquote(parts.path.lstrip("/")),
        host=parts.hostname or None,
        port=parts.port or None,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        max_connections=max_connections,
        stale_timeout=300,
        # Wait for a free connection instead of failing when all are checked out.
        timeout=10,
        **options,
    )


def bind(database) -> None:
    db.initialize(database)


def is_sqlite() -> bool:
    return isinstance(db.obj, PooledSqliteDatabase)


# One writer at a time in a process. SQLite has one write lock; a thread that finds it
# taken polls in SQLite's busy handler, sleeping up to 100 ms between tries, which under
# load costs far more than the writes. Queued on this lock instead, the next writer starts
# the moment the last one commits. Other processes still queue on SQLite's own lock.
_writer = threading.RLock()


# Per thread: how deep in write_transaction it is, and what runs once the outermost commits.
_transactions = threading.local()


@contextmanager
def write_transaction():
    """A transaction that will write: BEGIN IMMEDIATE on SQLite (one writer a process at a
    time), plain BEGIN on PostgreSQL. Nested, it is a savepoint of the outer one; what
    `after_commit` registered runs when the outermost one has committed."""
    depth = getattr(_transactions, "depth", 0)
    if depth == 0:
        _transactions.after = []
    registered = len(_transactions.after)
    _transactions.depth = depth + 1
    try:
        if not is_sqlite():
            with db.atomic() as transaction:
                yield transaction
        else:
            with _writer, db.atomic("IMMEDIATE") as transaction:
                yield transaction
    except BaseException:
        del _transactions.after[registered:]  # what this (sub)transaction registered is rolled back with it
        raise
    finally:
        _transactions.depth = depth
    if depth == 0:
        callbacks, _transactions.after = _transactions.after, []
        for callback in callbacks:
            callback()


def after_commit(callback) -> None:
    """Run `callback()` once the outermost write_transaction of this thread has committed
    (dropped if it rolls back); at once outside one."""
    if getattr(_transactions, "depth", 0):
        _transactions.after.append(callback)
    else:
        callback()


def children_of(model, parent_field, parent_ids: list, order) -> dict:
    """Rows of `model` for several parents in one query: {parent id: [rows in `order`]}."""
    grouped: dict = {pid: [] for pid in parent_ids}
    if parent_ids:
        for row in model.select().where(parent_field.in_(parent_ids)).order_by(parent_field, order):
            grouped[getattr(row, f"{parent_field.name}_id")].append(row)
    return grouped


def locked(query):
    """SELECT ... FOR UPDATE where the database has row locks (SQLite's IMMEDIATE lock covers it)."""
    return query.for_update() if db.for_update else query


class Slot(str):
    """A placeholder value of a `Compiled` query: a string no caller would ever pass."""


class Compiled:
    """A Peewee query whose SQL is built once per database and then run with new values.

    Building SQL walks the query's tree, some hundred nodes for a join: on the requests
    every client makes (the key's lookup, a post's read) that cost more than running the
    query. `build(*slots)` makes the query from placeholder values (string columns only);
    the SQL it gives is kept, with where each value goes, and `rows(*values)` runs it as a
    raw query of `model` (columns of other tables come as attributes, by their alias), or
    `first(*values)` its first row, or `execute(*values)` runs a write.
    """

    def __init__(self, model, build, arity: int | None = None):
        self.model, self.build = model, build
        # How many values the query takes: `build`'s parameters, unless it takes *values.
        self.arity = build.__code__.co_argcount if arity is None else arity
        self._by_database: dict[int, tuple[str, list]] = {}
        self._shapes: dict[int, tuple[list, list]] = {}

    def _statement(self, values: tuple) -> tuple[str, list]:
        compiled = self._by_database.get(id(db.obj))
        if compiled is None:
            slots = [Slot(f"\x00slot{i}\x00") for i in range(self.arity)]
            sql, params = self.build(*slots).sql()
            # Each parameter: ("value", i) takes the caller's i-th value; ("fixed", v) stays.
            plan = [("value", slots.index(p)) if p in slots else ("fixed", p) for p in params]
            compiled = self._by_database[id(db.obj)] = (sql, plan)
        sql, plan = compiled
        return sql, [values[v] if kind == "value" else v for kind, v in plan]

    def rows(self, *values) -> list:
        """The rows of a compiled SELECT, as instances of `model`, as `model.raw` makes them;
        only which column goes to which field, with its converter, is also worked out once."""
        sql, params = self._statement(values)
        cursor = db.execute_sql(sql, params)
        shape = self._shapes.get(id(db.obj))
        if shape is None:
            wrapper = ModelObjectCursorWrapper(cursor, self.model, [], self.model)
            wrapper.initialize()
            shape = self._shapes[id(db.obj)] = (wrapper.unique_columns, wrapper.converters)
        columns, converters = shape
        found = []
        for row in cursor.fetchall():
            instance = self.model(__no_default__=1, **{
                column: value if convert is None else convert(value)
                for column, convert, value in zip(columns, converters, row)})
            instance._dirty.clear()
            found.append(instance)
        return found

    def first(self, *values):
        """The first row of a compiled SELECT, or None."""
        found = self.rows(*values)
        return found[0] if found else None

    def execute(self, *values) -> int:
        """Run a compiled INSERT, UPDATE or DELETE; the rows it changed. Values go to the
        database as given: build it with `Value(slot)` (no field converter), and pass what
        the field would store (a str, an int, a bool, a datetime, None)."""
        return db.execute_sql(*self._statement(values)).rowcount


class CompiledInsert:
    """An INSERT of one row of `model`, compiled once like `Compiled`, from an instance.

    Every column but an auto-incremented key goes in, valued from the instance given to
    `execute`: a column is named once, where the instance is made, and a field left unset
    goes in as its default or NULL. `build` adds to the insert (`on_conflict_ignore`...).
    """

    def __init__(self, model, build=lambda insert: insert):
        self.fields = [f for f in model._meta.sorted_fields if not isinstance(f, AutoField)]
        self._compiled = Compiled(model, lambda *slots: build(model.insert(
            {field: Value(slot) for field, slot in zip(self.fields, slots)})), arity=len(self.fields))

    def execute(self, row) -> int:
        """Insert `row`, an instance of the model not saved; the rows inserted (0: ignored)."""
        return self._compiled.execute(*(f.db_value(row.__data__.get(f.name)) for f in self.fields))
