"""Connexion validators that answer bad input with clear 400s instead of 500s.

- JSON bodies: invalid UTF-8 is a 400 (Connexion decodes outside its try: connexion#1860);
  a body of `null` is validated like any other value, not taken for a missing body.
- A body is read whatever its framing (chunked included), not only when Content-Length
  says there is one.
- Parameters: the message names the parameter (Connexion's does not) and quotes unknown
  query parameter names.
"""
from __future__ import annotations

import json

from connexion.datastructures import MediaTypeDict
from connexion.exceptions import BadRequestProblem, ExtraParameterProblem
from connexion.validators import VALIDATOR_MAP, JSONRequestBodyValidator, ParameterValidator
from jsonschema import Draft4Validator, ValidationError


# An empty body, told apart from a body that is the JSON value `null`.
_NO_BODY = object()


class JSONBodyValidator(JSONRequestBodyValidator):
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
        return self._insert_messages(receive, messages=messages), scope

    async def _parse(self, stream, scope):
        raw = b"".join([message async for message in stream])
        try:
            text = raw.decode(self._encoding)
        except (UnicodeDecodeError, LookupError):
            raise BadRequestProblem(detail="the body is not valid UTF-8") from None
        if not text:
            return _NO_BODY
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise BadRequestProblem(detail=f"the body is not valid JSON: {e}") from None

    def _validate(self, body):
        if body is _NO_BODY:
            if self._required:
                raise BadRequestProblem(detail="the request needs a JSON body")
            return
        # A body that is there is validated, `null` included: an optional body may be left
        # out, but when it is sent it must match its schema.
        try:
            self._validator.validate(body)
        except ValidationError as e:
            where = "/".join(str(p) for p in e.absolute_path)
            raise BadRequestProblem(detail=f"{where or 'body'}: {e.message}") from None


class NamedParameterValidator(ParameterValidator):
    @staticmethod
    def validate_parameter(parameter_type, value, param, param_name=None):
        if value is None:
            if param.get("required"):
                return f"{parameter_type} parameter '{param['name']}' is required"
            return None
        try:
            Draft4Validator(param.get("schema", param), format_checker=Draft4Validator.FORMAT_CHECKER).validate(value)
        except ValidationError as e:
            return f"{parameter_type} parameter '{param['name']}': {e.message}"
        return None


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
