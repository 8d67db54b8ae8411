"""Connexion validators that answer bad input with clear 400s instead of 500s.

- JSON bodies are parsed here, and only here, into values every later step can take:
  invalid UTF-8 (Connexion decodes outside its try: connexion#1860), nesting deeper than
  64, integers outside signed 64 bits, non-finite numbers, lone surrogates (no encoder
  takes them) and NUL characters (PostgreSQL text cannot hold them) are 400s.
- A body without a Content-Type is a 400 (Connexion would hand the handler raw bytes).
- A body is read whatever its framing (chunked included), not only when Content-Length
  says there is one; a body of `null` is validated like any other value.
- Parameters: the message names the parameter (Connexion's does not) and quotes unknown
  query parameter names.
- A body or parameter that breaks its schema gets a message that names the field as the
  client wrote it and says what to send (fanout/http/messages.py), not a dump of the schema.
"""
from __future__ import annotations

import json
import math
import re

from connexion.datastructures import MediaTypeDict
from connexion.exceptions import BadRequestProblem, ExtraParameterProblem
from connexion.json_schema import Draft4RequestValidator
from connexion.utils import extract_content_type
from connexion.validators import VALIDATOR_MAP, JSONRequestBodyValidator, ParameterValidator
import jsonschema_rs
from jsonschema import Draft4Validator, FormatChecker, ValidationError

from ..problems import InvalidRequest
from ..times import parse_timestamp
from . import messages
from .operations import PARSED_BODY

MAX_DEPTH = 64
INT_MIN, INT_MAX = -(2**63), 2**63 - 1

# An empty body, told apart from a body that is the JSON value `null`.
_NO_BODY = object()

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class _Refused(ValueError):
    """A JSON value the service does not take; the message says which and why."""


def _parse_int(digits: str) -> int:
    # Checked on the digits: int() of thousands of digits is slow, and raises past 4300.
    if len(digits.lstrip("-")) > 19 or not INT_MIN <= int(digits) <= INT_MAX:
        raise _Refused("integers must fit in signed 64 bits")
    return int(digits)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("numbers must be finite")
    return value


def _parse_constant(name: str):
    raise _Refused(f"{name} is not JSON")


def _check_text(text: str) -> None:
    found = _UNSTORABLE.search(text)
    if found:
        what = "NUL characters" if found.group() == "\x00" else "lone surrogates (\\ud800-\\udfff without a pair)"
        raise _Refused(f"strings must not contain {what}")


def _check_value(value) -> None:
    """Depth and strings of a parsed document, without recursion."""
    pending = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, str):
            _check_text(node)
        elif isinstance(node, (dict, list)):
            if depth > MAX_DEPTH:
                raise _Refused(f"the body nests deeper than {MAX_DEPTH} levels")
            if isinstance(node, dict):
                for key, item in node.items():
                    _check_text(key)
                    pending.append((item, depth + 1))
            else:
                pending.extend((item, depth + 1) for item in node)


def parse_json(text: str):
    """The JSON document in `text`, or BadRequestProblem saying why the service does not take it."""
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
        _check_value(value)
    except json.JSONDecodeError as e:
        raise BadRequestProblem(detail=f"the body is not valid JSON: {e}") from None
    except RecursionError:
        raise BadRequestProblem(detail=f"the body nests deeper than {MAX_DEPTH} levels") from None
    except _Refused as e:
        raise BadRequestProblem(detail=f"the body is not accepted: {e}") from None
    return value


class CheckedTwice:
    """A jsonschema validator with a compiled one in front: `validate` asks jsonschema_rs
    first, and jsonschema only when it says no, so an accepted value costs microseconds and
    a refused one gets jsonschema's error (the 400's message below), or passes if jsonschema
    takes it after all.

    So the rules are jsonschema's wherever the two differ on a value jsonschema_rs refuses:
    OpenAPI's `nullable`, which only Connexion's validator knows, formats jsonschema does
    not check. jsonschema_rs accepts nothing jsonschema refuses on this spec's schemas
    (`tests/http/test_validation_engines.py`); a schema it cannot compile is checked by
    jsonschema alone.
    """

    def __init__(self, schema: dict, slow: Draft4Validator) -> None:
        self.slow = slow
        try:
            self.fast = jsonschema_rs.Draft4Validator(schema, validate_formats=True)
        except Exception:  # a pattern or keyword it cannot compile: jsonschema alone
            self.fast = None

    def is_valid(self, instance) -> bool:
        if self.fast is not None:
            try:
                if self.fast.is_valid(instance):
                    return True
            except Exception:  # a value it cannot take in (not JSON): jsonschema decides
                pass
        return self.slow.is_valid(instance)

    def validate(self, instance) -> None:
        if self.fast is not None:
            try:
                if self.fast.is_valid(instance):
                    return
            except Exception:
                pass
        self.slow.validate(instance)

    def error_of(self, instance) -> ValidationError | None:
        """None when `instance` is valid, else the error to tell (fanout/http/messages.py
        `first_error`), chosen among every error jsonschema finds."""
        if self.is_valid(instance):
            return None
        return messages.first_error(self.slow.iter_errors(instance))


class _Validators:
    """Validators made once per schema.

    Connexion makes a new validator for each request (and each parameter of it); making
    one costs about as much as validating a small body. A schema here is a dict of the
    loaded spec that lives as long as the app, so it is known by identity, and kept, so
    its id cannot be reused. Validators are immutable: one serves every request.
    """

    def __init__(self, make) -> None:
        self.make = make
        self._made: dict[int, tuple[dict, CheckedTwice]] = {}

    def __call__(self, schema: dict) -> CheckedTwice:
        known = self._made.get(id(schema))
        if known is None or known[0] is not schema:
            known = self._made[id(schema)] = (schema, CheckedTwice(schema, self.make(schema)))
        return known[1]


def _date_time(value) -> bool:
    if isinstance(value, str):
        parse_timestamp(value)  # ValueError, saying what to send, is the 400's message
    return True


# jsonschema's format checks, with `date-time` held to the service's one rule for it.
FORMATS = FormatChecker(list(Draft4Validator.FORMAT_CHECKER.checkers))
FORMATS.checks("date-time", raises=ValueError)(_date_time)

_body_validators = _Validators(lambda schema: Draft4RequestValidator(schema, format_checker=FORMATS))
_parameter_validators = _Validators(lambda schema: Draft4Validator(schema, format_checker=FORMATS))


class JSONBodyValidator(JSONRequestBodyValidator):
    @property
    def _validator(self):
        return _body_validators(self._schema)

    async def wrap_receive(self, receive, *, scope):
        # Connexion's takes a missing Content-Length for a missing body, so a chunked body
        # was refused as absent; read what comes instead and replay it to the handler.
        messages = []

        async def stream():
            more_body = True
            while more_body:
                message = await receive()
                messages.append(message)
                more_body = message.get("more_body", False)
                yield message.get("body", b"")

        body = await self._parse(stream(), scope=scope)
        if not (body is None and self._nullable):
            self._validate(body)
        # For the handler (fanout/http/operations.py): what Connexion would parse again.
        scope.setdefault("extensions", {})[PARSED_BODY] = None if body is _NO_BODY else body
        return self._insert_messages(receive, messages=messages), scope

    async def _parse(self, stream, scope):
        raw = b"".join([chunk async for chunk in stream])
        if not raw:
            return _NO_BODY
        if extract_content_type(scope["headers"]) is None:
            raise BadRequestProblem(detail="the body has no Content-Type; send it as JSON with 'Content-Type: application/json'")
        try:
            text = raw.decode(self._encoding)
        except (UnicodeDecodeError, LookupError):
            raise BadRequestProblem(detail="the body is not valid UTF-8") from None
        return parse_json(text)

    def _validate(self, body):
        if body is _NO_BODY:
            if self._required:
                raise BadRequestProblem(detail="the request needs a JSON body")
            return
        # A body that is there is validated, `null` included: an optional body may be left
        # out, but when it is sent it must match its schema.
        error = self._validator.error_of(body)
        if error is not None:
            raise BadRequestProblem(detail=body_message(error, self._schema)) from None


def body_message(error: ValidationError, root: dict | None = None) -> str:
    """The 400's message for a body that breaks its schema (fanout/http/messages.py)."""
    return messages.render(error, root)


class RequestBody:
    """An operation's JSON body schema, checked as the API checks it, for callers that build
    a body themselves (the dashboard's forms): the same schema, the same validator, and
    InvalidRequest with the message the API's 400 would carry.

    `spec` is the spec as the server enforces it (fanout/spec.py `load`).
    """

    def __init__(self, spec: dict, operation_id: str) -> None:
        schema = next(op["requestBody"]["content"]["application/json"]["schema"]
                      for item in spec["paths"].values() for op in item.values()
                      if isinstance(op, dict) and op.get("operationId") == operation_id and "requestBody" in op)
        self._spec = spec
        # The components beside the schema, so its $refs resolve against the same document.
        self._root = {**schema, "components": spec["components"]}
        self._validator = _body_validators(self._root)
        self.schema = self._resolve(schema)

    def _resolve(self, node: dict) -> dict:
        while "$ref" in node:
            target = self._spec
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    @property
    def properties(self) -> dict[str, dict]:
        """The body's fields, each schema with its $ref followed."""
        return {name: self._resolve(field) for name, field in self.schema.get("properties", {}).items()}

    def check(self, body: dict) -> None:
        error = self._validator.error_of(body)
        if error is not None:
            # Its first line, as the API's error handler keeps of a 400's detail.
            raise InvalidRequest(body_message(error, self._root).strip().split("\n", 1)[0]) from None


class NamedParameterValidator(ParameterValidator):
    @staticmethod
    def validate_parameter(parameter_type, value, param, param_name=None):
        if value is None:
            if param.get("required"):
                return f"{parameter_type} parameter '{param['name']}' is required"
            return None
        schema = param.get("schema", param)
        error = _parameter_validators(schema).error_of(value)
        if error is None:
            return None
        return messages.render(error, schema, where=f"{parameter_type} parameter '{param['name']}'")

    def validate_request(self, request):
        try:
            super().validate_request(request)
        except ExtraParameterProblem:
            # Connexion's message joins the names unquoted; quoted, error messages can cut them.
            unknown = self.validate_query_parameter_list(request, security_params=self.security_query_params)
            names = ", ".join(repr(name) for name in sorted(unknown))
            raise BadRequestProblem(detail=f"unknown query parameter(s) {names}") from None


VALIDATOR_MAP_WITH_CLEAR_ERRORS = {
    **VALIDATOR_MAP,
    "body": MediaTypeDict({**VALIDATOR_MAP["body"], "*/*json": JSONBodyValidator}),
    "parameter": NamedParameterValidator,
}
