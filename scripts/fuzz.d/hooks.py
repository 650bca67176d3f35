"""Schemathesis hooks for scripts/fuzz-contract (loaded through SCHEMATHESIS_HOOKS).

Three kinds of hook:

- a serializer for `application/x-ndjson`, so `POST /v1/devices/import` can be sent at all;
- steering: schema-valid registrations, feedback and SIP contacts are rewritten, where that keeps
  them schema-valid, to name the providers the script created and to carry tokens and contacts
  that fit, so positive cases reach the database instead of stopping at "no such provider";
- checks that replace two built-in ones where the contract itself says they do not apply (see
  schemathesis.toml): positive data may be 422 only for the cross-field rules each operation
  documents, and a schema-violating batch item or import line is refused in its own result
  while the request as a whole is 200. Plus one built-in gap: NDJSON response lines are
  validated against their schema, which schemathesis skips for that media type.
"""

import hashlib
import json
import os
import re

import jsonschema_rs
import schemathesis
import yaml

# The providers scripts/fuzz-contract creates.
APNS_PROVIDER = "ios"
FCM_PROVIDER = "android"

PROVIDER_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
SCHEMA_TOKEN = re.compile(r"^[A-Za-z0-9_:.\-]{1,4096}$")
# openapi.yaml's ConsistencyToken pattern. Schemathesis' coverage phase sends `0` in that header
# as positive data; the value breaks the pattern, so the 422 naming the header is the contract.
CONSISTENCY_TOKEN = re.compile(r"^[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}$")
APNS_TOKEN = re.compile(r"^(?:[0-9A-Fa-f]{2}){16,512}$")


# --- Serializer ---------------------------------------------------------------------------------


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    """The import's schema describes one line: send the generated value as a one-line body.

    Strings that are not valid UTF-8 (lone surrogates) stay invalid on the wire: the server must
    answer that line with 422, not fail.
    """
    if isinstance(value, bytes):
        return value
    return (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")


# --- Steering -----------------------------------------------------------------------------------


def _label(context_or_case):
    operation = context_or_case.operation
    return f"{operation.method.upper()} {operation.path}" if operation is not None else ""


def _steer_registration(item):
    """Rewrites the fields of a registration that are schema-valid into values the server's
    cross-field rules accept; fields that violate the schema are left alone, so a negative case
    stays negative. One registration in four is left as generated, so the unknown-provider and
    wrong-token answers keep being exercised."""
    if not isinstance(item, dict):
        return item
    kind, token, provider = item.get("type"), item.get("token"), item.get("provider")
    if kind not in ("apns", "voip", "fcm") or not isinstance(token, str) or not SCHEMA_TOKEN.match(token):
        return item
    digest = hashlib.sha256(json.dumps(item, sort_keys=True, default=str).encode()).hexdigest()
    if digest[0] in "0123":
        return item
    item = dict(item)
    if isinstance(provider, str) and PROVIDER_NAME.match(provider):
        item["provider"] = APNS_PROVIDER if kind in ("apns", "voip") else FCM_PROVIDER
    if kind in ("apns", "voip") and not APNS_TOKEN.match(token):
        item["token"] = hashlib.sha256(token.encode()).hexdigest()
    if kind == "fcm" and item.get("environment") in ("production", "sandbox"):
        del item["environment"]
    return item


def _steer_sip(body):
    """Random text is never a SIP Contact with RFC 8599 parameters: three schema-valid bodies in
    four get one (apns remote + voip, apns.dev voip, fcm; with or without +sip.instance) built
    from the generated contact, so the SIP path reaches the database."""
    contact = body.get("contact") if isinstance(body, dict) else None
    if not isinstance(contact, str) or not 1 <= len(contact) <= 16384:
        return body
    digest = hashlib.sha256(contact.encode("utf-8", "surrogatepass")).hexdigest()
    if digest[0] in "0123":
        return body
    remote, voip = digest, hashlib.sha256(digest.encode()).hexdigest()
    user = "".join(c for c in contact if c.isascii() and c.isalnum())[:32] or "alice"
    shape = int(digest[1], 16) % 3
    if shape == 0:
        steered = (f"<sip:{user}@10.0.0.1;pn-provider=apns;pn-prid={remote}:remote&{voip}:voip;"
                   f"pn-param=ABCDE12345.com.example.app.remote&voip>")
    elif shape == 1:
        steered = f"<sip:{user}@10.0.0.1;pn-provider=apns.dev;pn-prid={voip}:voip;pn-param=ABCDE12345.com.example.app.voip>"
    else:
        steered = f"<sip:{user}@10.0.0.1;pn-provider=fcm;pn-prid=fcm-{remote[:40]}:APA91b;pn-param=example-project>"
    if int(digest[2], 16) % 2:
        steered += f';+sip.instance="<urn:uuid:{voip[:8]}-{voip[8:12]}-4{voip[13:16]}-8{voip[17:20]}-{voip[20:32]}>"'
    return {**body, "contact": steered}


@schemathesis.hook
def map_body(context, body):
    label = _label(context)
    if label in ("POST /v1/devices", "POST /v1/devices/import"):
        return _steer_registration(body)
    if label == "POST /v1/devices/batch" and isinstance(body, dict) and isinstance(body.get("devices"), list):
        return {**body, "devices": [_steer_registration(item) for item in body["devices"]]}
    if label == "POST /v1/users/{user_id}/devices/sip":
        return _steer_sip(body)
    if label == "POST /v1/feedback" and isinstance(body, dict):
        provider = body.get("provider")
        token = body.get("token")
        if isinstance(provider, str) and PROVIDER_NAME.match(provider) and isinstance(token, str):
            steered = dict(body)
            steered["provider"] = APNS_PROVIDER if APNS_TOKEN.match(token) else FCM_PROVIDER
            return steered
    return body


# --- Checks -------------------------------------------------------------------------------------

# Per operation, the fields whose 422 on schema-valid data is a documented rule the schema cannot
# express (a provider that does not exist, a token that does not fit its type, a byte limit, a
# cursor that this API did not issue, …). Any other 422 on positive data fails.
SEMANTIC_FIELDS = {
    "POST /v1/devices": {
        # unknown provider; type its service does not take; per-type token format; environment
        # for fcm; user_id over 255 bytes; labels that are only whitespace or over their length in
        # characters (the schema counts code points); payload_encryption only for a signalwire
        # provider, rotate_payload_key only beside payload_encryption.
        "provider", "type", "token", "environment", "user_id", "device_id", "platform", "app_version",
        "payload_encryption", "rotate_payload_key",
    },
    "GET /v1/devices": {"cursor", "user_id"},
    # no cross-field rule: listed so that only a Registry-Consistency value that breaks its own
    # pattern (see CONSISTENCY_TOKEN) may be refused
    "GET /v1/devices/export": set(),
    "GET /v1/devices/{token}": set(),
    "GET /v1/users/{user_id}/devices": {"user_id"},
    "DELETE /v1/users/{user_id}/devices": {"user_id"},
    "DELETE /v1/users/{user_id}/devices/{token}": {"user_id"},
    # a contact without usable push parameters or naming no configured provider
    "POST /v1/users/{user_id}/devices/sip": {"contact", "user_id", "device_id"},
    "POST /v1/feedback": {"provider", "reason"},
    # topic required for apns and not allowed for fcm; project_id not allowed for apns; a key
    # must be a real key that signs, a token_uri an https URL, an endpoint's port 1–65535; an APNs
    # certificate a readable, unexpired one with its own key, a .p12 one its password opens
    "PUT /v1/providers/{name}": {
        "topic", "project_id", "endpoint", "credentials.private_key", "credentials.service_account.private_key",
        "credentials.certificate", "credentials.pkcs12", "credentials.pkcs12_password",
        "credentials.service_account.token_uri", "credentials.service_account.project_id",
        "credentials.service_account.client_email",
    },
    "POST /v1/keys": {"name"},
    # user ids over 255 bytes; neither section; a zero or over-300s duration; a section over every
    # target's size limit; FCM's reserved data keys and per-device targets; background priority;
    # a voip push in a job (apns.push_type) or kept or sent beyond 60s (deadline, apns.expiration).
    # A name ending in "." or "[" covers the fields under it.
    "POST /v1/push": {
        "user_ids[", "apns", "deadline", "apns.expiration", "apns.payload", "apns.priority", "apns.collapse_id",
        "apns.push_type", "fcm.message", "fcm.message.",
    },
    # ttl over 60s for a ring; ringing_at over 60 s ahead; ids and user ids over 255 bytes; call
    # metadata over 2 KiB; an id posted before with another event is 409 (allowed above).
    "POST /v1/call-events": {"id", "ttl", "ringing_at", "user_ids", "user_ids[", "call.", "caller."},
}


NDJSON_TYPES = ("application/x-ndjson", "application/jsonl")


def _covered(field, allowed):
    return field in allowed or any(field.startswith(p) for p in allowed if p.endswith((".", "[")))


def _field_errors(response):
    try:
        problem = json.loads(response.content)
    except ValueError:
        return None
    if not isinstance(problem, dict) or not isinstance(problem.get("errors"), list):
        return None
    return {error.get("field") for error in problem["errors"] if isinstance(error, dict)}


def _is(case, mode):
    meta = case.meta
    return meta is not None and getattr(meta.generation.mode, f"is_{mode}")


def _answers_the_operation(case, response):
    """False for the probes checks send with another method (unsupported_method's OPTIONS…)."""
    request = getattr(response, "request", None)
    return request is None or (request.method or "").upper() == case.operation.method.upper()


@schemathesis.check
def positive_data_semantic_acceptance(ctx, response, case):
    """positive_data_acceptance for operations with cross-field rules: schema-valid data is
    accepted, or refused with 422 naming only fields those rules cover."""
    allowed = SEMANTIC_FIELDS.get(_label(case))
    if allowed is None or not _is(case, "positive") or not _answers_the_operation(case, response):
        return None
    status = response.status_code
    if 200 <= status < 300 or status in (401, 403, 404, 409, 413, 414, 429):
        return None
    fields = _field_errors(response) if status == 422 else None
    if fields and getattr(case, "media_type", None) in NDJSON_TYPES:
        # A job's NDJSON body is a string to the schema, which cannot describe its lines (the
        # push or call event, then user ids): any 422 that names what it refuses is the contract.
        return None
    if fields and all(_breaks_its_header_pattern(case, field) for field in fields):
        return None
    if not fields or not all(_covered(field, allowed) for field in fields):
        raise AssertionError(
            f"Schema-valid request answered {status}; a 422 here may only name {sorted(allowed)}, "
            f"got {sorted(fields or [])}: {response.text[:300]}"
        )
    return None


def _breaks_its_header_pattern(case, field):
    """A 422 naming a header whose generated value does not match the header's own pattern."""
    if field != "Registry-Consistency":
        return False
    value = (case.headers or {}).get(field)
    return value is not None and not CONSISTENCY_TOKEN.fullmatch(value)


def _ndjson_lines(response):
    return [json.loads(line) for line in response.content.splitlines() if line.strip()]


@schemathesis.check
def negative_item_rejection(ctx, response, case):
    """negative_data_rejection for the batch and the import, which answer 200 with one result per
    item: a schema-violating body must be refused as a whole (4xx) or in at least one item (422,
    or 400 for an import line that is not JSON)."""
    label = _label(case)
    if label not in ("POST /v1/devices/batch", "POST /v1/devices/import") or not _is(case, "negative"):
        return None
    if not _answers_the_operation(case, response):
        return None
    if response.status_code != 200:
        if 400 <= response.status_code < 500:
            return None
        raise AssertionError(f"Schema-violating request answered {response.status_code}")
    if label == "POST /v1/devices/batch":
        results = json.loads(response.content).get("results", [])
    else:
        results = _ndjson_lines(response)
    if not any(isinstance(r, dict) and r.get("status") in (400, 422) for r in results):
        # Negations schemathesis makes that the server legitimately reads as valid: a non-body
        # part (a header or query value the server ignores) or an empty import.
        if label == "POST /v1/devices/import" and not results:
            return None
        data = case.meta.phase.data if case.meta is not None else None
        location = getattr(data, "parameter_location", None)
        if location is not None and location.name.lower() != "body":
            return None
        raise AssertionError(f"Schema-violating body accepted in every item: {response.text[:300]}")
    return None


def _contract():
    """The contract's schemas as one JSON Schema document (OpenAPI 3.0 `nullable` → null type),
    and its paths."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "openapi.yaml")
    with open(path, encoding="utf-8") as file:
        document = yaml.safe_load(file)

    def convert(node):
        if isinstance(node, dict):
            node = {key: convert(value) for key, value in node.items()}
            if node.pop("nullable", False):
                node = {"anyOf": [node, {"type": "null"}]}
            return node
        if isinstance(node, list):
            return [convert(value) for value in node]
        return node

    return {"components": convert(document["components"])}, document["paths"]


_CONTRACT, _CONTRACT_PATHS = _contract()
_VALIDATORS = {}
_NDJSON_SCHEMAS = {
    "GET /v1/devices/export": "Device",
    "POST /v1/devices/import": "ImportLineResult",
}


@schemathesis.check
def ndjson_line_conformance(ctx, response, case):
    """Every line of an NDJSON 200 answer (export, import) matches the schema of one line."""
    name = _NDJSON_SCHEMAS.get(_label(case))
    if name is None or response.status_code != 200:
        return None
    validator = _VALIDATORS.get(name)
    if validator is None:
        schema = {**_CONTRACT, "$ref": f"#/components/schemas/{name}"}
        validator = _VALIDATORS[name] = jsonschema_rs.Draft4Validator(schema, validate_formats=True)
    for number, line in enumerate(response.content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            raise AssertionError(f"line {number} is not JSON: {error}: {line[:200]!r}") from None
        errors = list(validator.iter_errors(value))
        if errors:
            raise AssertionError(f"line {number} does not match {name}: {errors[0].message}: {line[:300]!r}")
    return None


_PATH_METHODS = {
    path: {method.upper() for method in item if method in ("get", "put", "post", "delete", "patch")}
    for path, item in _CONTRACT_PATHS.items()
}


@schemathesis.check
def allow_lists_documented_methods(ctx, response, case):
    """`Allow` on a 405 or an OPTIONS answer lists at least every method the contract documents
    for the path, and HEAD with GET (the built-in allow_header_conformance checks the rest)."""
    allow = response.headers.get("allow") or response.headers.get("Allow")
    if allow is None:
        return None
    if isinstance(allow, list):
        allow = ",".join(allow)
    advertised = {method.strip().upper() for method in allow.split(",") if method.strip()}
    documented = _PATH_METHODS.get(case.operation.path, set())
    missing = documented - advertised
    if "GET" in documented and "HEAD" not in advertised:
        missing.add("HEAD")
    if missing:
        raise AssertionError(f"Allow: {allow} leaves out documented methods {sorted(missing)}")
    return None


# --- Protecting the fixtures --------------------------------------------------------------------

PROTECTED_KEY_ID = os.environ.get("FUZZ_KEY_ID", "")
PROTECTED_PROVIDERS = {APNS_PROVIDER, FCM_PROVIDER}


@schemathesis.hook
def before_call(context, case, kwargs):
    """Schemathesis reuses ids it has seen in responses (GET /v1/keys lists the fuzzer's own key),
    so left alone it revokes its own key and every later request is a 401, or deletes the
    providers the steering relies on. Such requests go to a sibling that does not exist instead:
    the operation is still exercised, on a 404/201 path."""
    label = _label(case)
    parameters = case.path_parameters or {}
    if label == "DELETE /v1/keys/{id}" and str(parameters.get("id", "")).lower() == PROTECTED_KEY_ID:
        case.path_parameters = {**parameters, "id": "00000000-0000-4000-8000-000000000000"}
    if label in ("DELETE /v1/providers/{name}", "PUT /v1/providers/{name}") and parameters.get("name") in PROTECTED_PROVIDERS:
        case.path_parameters = {**parameters, "name": parameters["name"] + "-fuzz"}
