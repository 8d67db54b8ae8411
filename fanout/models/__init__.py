"""Peewee models over one database proxy (SQLite or PostgreSQL)."""
from .connect_session import ConnectSession
from .dashboard import DashboardLink, DashboardSession
from .db import BaseModel, bind, db, locked, open_database, write_transaction
from .event import Delivery, DeliveryAttempt, Event
from .heartbeat import WorkerHeartbeat
from .idempotency import IdempotencyRecord
from .post import Post, PostPlatform, Target
from .tables.account import Account
from .tables.api_key import ApiKey
from .tables.webhook import Webhook
from .usage import MonthlyUsage
from .workspace import Workspace

MODELS = [
    Workspace, ApiKey, Account, ConnectSession, Webhook, Post, Target, PostPlatform, MonthlyUsage, IdempotencyRecord,
    Event, Delivery, DeliveryAttempt, WorkerHeartbeat, DashboardLink, DashboardSession,
]

__all__ = [
    "Account", "ApiKey", "BaseModel", "ConnectSession", "DashboardLink", "DashboardSession", "Delivery", "DeliveryAttempt", "Event", "IdempotencyRecord", "MODELS", "MonthlyUsage",
    "Post", "PostPlatform", "Target", "Webhook", "WorkerHeartbeat", "Workspace", "bind", "db", "locked", "open_database", "write_transaction",
]
