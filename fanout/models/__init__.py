"""Peewee models over one database proxy (SQLite or PostgreSQL): the tables (tables/) and
the database handle, what the rest of the service names as `fanout.models`; the rules on
the tables are the package's other modules."""
from .db import BaseModel, bind, db, locked, open_database, write_transaction
from .tables.account import Account
from .tables.api_key import ApiKey
from .tables.connect_session import ConnectSession
from .tables.dashboard_link import DashboardLink
from .tables.dashboard_session import DashboardSession
from .tables.delivery import Delivery
from .tables.delivery_attempt import DeliveryAttempt
from .tables.event import Event
from .tables.idempotency_record import IdempotencyRecord
from .tables.instance_app import InstanceApp
from .tables.monthly_usage import MonthlyUsage
from .tables.post import Post
from .tables.post_platform import PostPlatform
from .tables.target import Target
from .tables.webhook import Webhook
from .tables.worker_heartbeat import WorkerHeartbeat
from .tables.workspace import Workspace

MODELS = [
    Workspace, ApiKey, Account, ConnectSession, Webhook, Post, Target, PostPlatform, MonthlyUsage, IdempotencyRecord,
    Event, Delivery, DeliveryAttempt, WorkerHeartbeat, DashboardLink, DashboardSession, InstanceApp,
]

__all__ = [
    "Account", "ApiKey", "BaseModel", "ConnectSession", "DashboardLink", "DashboardSession", "Delivery", "DeliveryAttempt", "Event", "IdempotencyRecord", "InstanceApp", "MODELS", "MonthlyUsage",
    "Post", "PostPlatform", "Target", "Webhook", "WorkerHeartbeat", "Workspace", "bind", "db", "locked", "open_database", "write_transaction",
]
