"""The README's first steps, as a backend developer runs them through a client generated from
openapi.yaml (openapi-python-client), and every real exchange checked against the same document
with openapi-core. Run by scripts/client-contract, which generates the client, starts the server
and passes: BASE_URL, KEY (an admin key), CLIENT_DIR (where the generated package is).

Fails (exit 1) when the generated client cannot send a typed request, cannot parse an answer
(a strict client refuses a null the schema does not allow), or an answer or request breaks the
schema. Prints one line per call and a summary.
"""

import json
import os
import sys
from urllib.parse import parse_qsl

import yaml
from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

sys.path.insert(0, os.environ["CLIENT_DIR"])

from registry_client import AuthenticatedClient  # noqa: E402
from registry_client.api.devices import get_device, register_device, register_devices_batch  # noqa: E402
from registry_client.api.providers import get_provider, list_providers, put_provider  # noqa: E402
from registry_client.api.push import get_call_event, post_call_event, send_push  # noqa: E402
from registry_client.api.users import delete_user_device, list_user_devices  # noqa: E402
from registry_client.models import (  # noqa: E402
    ApnsDeviceRegistration,
    ApnsDeviceRegistrationRequest,
    ApnsDeviceRegistrationRequestType,
    ApnsDeviceRegistrationType,
    ApnsProviderInput,
    ApnsProviderInputService,
    BatchRegistration,
    CallEvent,
    CallEventCall,
    CallEventCaller,
    CallEventType,
    FcmDeviceRegistration,
    FcmDeviceRegistrationType,
    FcmProviderInput,
    FcmProviderInputService,
    PushRequest,
    PushRequestApns,
    PushRequestApnsPayload,
    PushRequestApnsPushType,
)

TOKEN = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
exchanges = []


def record(response):
    response.read()
    exchanges.append(response)


client = AuthenticatedClient(
    base_url=os.environ["BASE_URL"], token=os.environ["KEY"], raise_on_unexpected_status=True,
    httpx_args={"event_hooks": {"response": [record]}})


def call(what, module, *args, expect, **kwargs):
    """Calls the generated operation; its parsed answer must be of the type `expect`."""
    response = module.sync_detailed(*args, client=client, **kwargs)
    parsed = response.parsed
    if not isinstance(parsed, expect):
        sys.exit(f"client-contract: FAIL: {what}: HTTP {response.status_code}, parsed as "
                 f"{type(parsed).__name__}, not {expect.__name__}: {response.content[:300]!r}")
    print(f"  {what}: HTTP {response.status_code}, {type(parsed).__name__}")
    return parsed


# --- The README's first steps -------------------------------------------------------------------
from registry_client.models import (  # noqa: E402
    BatchResponse, DeviceEnvelope, DeviceList, ProviderEnvelope, ProviderList, PushResults,
    RegistrationResponse, CallEventResult)

call("PUT /v1/providers/ios", put_provider, "ios", expect=ProviderEnvelope,
     body=ApnsProviderInput(service=ApnsProviderInputService.APNS, topic="com.example.app"))
call("PUT /v1/providers/android", put_provider, "android", expect=ProviderEnvelope,
     body=FcmProviderInput(service=FcmProviderInputService.FCM, project_id="example-project"))
registered = call("POST /v1/devices", register_device, expect=RegistrationResponse,
                  body=ApnsDeviceRegistrationRequest(
                      user_id="alice", provider="ios", type_=ApnsDeviceRegistrationRequestType.VOIP,
                      token=TOKEN, device_id="install-1"))
listing = call("GET /v1/users/alice/devices", list_user_devices, "alice", expect=DeviceList)
if [device.token for device in listing.devices] != [TOKEN]:
    sys.exit(f"client-contract: FAIL: alice's devices are {listing.to_dict()}")

# --- What a backend does next, with the models the contract types -------------------------------
provider = call("GET /v1/providers/ios (no credentials: null)", get_provider, "ios", expect=ProviderEnvelope)
if provider.provider.credentials is not None:
    sys.exit("client-contract: FAIL: a provider without credentials parsed with credentials")
call("GET /v1/providers", list_providers, expect=ProviderList)
batch = call("POST /v1/devices/batch (typed items)", register_devices_batch, expect=BatchResponse,
             body=BatchRegistration(devices=[
                 ApnsDeviceRegistration(user_id="bob", provider="ios", type_=ApnsDeviceRegistrationType.APNS,
                                        token="ab" * 32),
                 FcmDeviceRegistration(user_id="bob", provider="android", type_=FcmDeviceRegistrationType.FCM,
                                       token="dGVzdA:APA91bH-example"),
             ]))
if [result.status for result in batch.results] != [201, 201]:
    sys.exit(f"client-contract: FAIL: batch results {batch.to_dict()}")
call("GET /v1/devices/{token}", get_device, TOKEN, provider="ios", expect=DeviceEnvelope)
# No credentials are stored: the push is answered with the device `failed` (NoCredentials).
call("POST /v1/push (expiration null)", send_push, expect=PushResults,
     body=PushRequest(user_ids=["alice"], apns=PushRequestApns(
         push_type=PushRequestApnsPushType.VOIP, payload=PushRequestApnsPayload.from_dict({"aps": {}}),
         expiration=None), deadline="5s"))
call("POST /v1/call-events (ttl null)", post_call_event, expect=CallEventResult,
     body=CallEvent(id="evt_client_1", type_=CallEventType.CALL_RING, user_ids=["alice"],
                    call=CallEventCall(id="call_1", type_="default"),
                    caller=CallEventCaller(id="john"), ttl=None))
call("GET /v1/call-events/evt_client_1", get_call_event, "evt_client_1", expect=CallEventResult)
response = delete_user_device.sync_detailed("alice", TOKEN, client=client, provider="ios")
if response.status_code != 204:
    sys.exit(f"client-contract: FAIL: DELETE answered {response.status_code}")
print("  DELETE /v1/users/alice/devices/{token}: HTTP 204")

# --- Every real exchange against the document ---------------------------------------------------
api = OpenAPI.from_dict(yaml.safe_load(open("openapi.yaml")))
failures = 0
for response in exchanges:
    request = response.request
    url = request.url
    headers = dict(request.headers)
    mock_request = MockRequest(
        f"{url.scheme}://{url.netloc.decode()}", request.method.lower(), url.path,
        args=dict(parse_qsl(url.query.decode())), data=request.content or None, headers=headers,
        content_type=headers.get("content-type", "application/json").split(";")[0])
    mock_response = MockResponse(
        response.content, status_code=response.status_code, headers=dict(response.headers),
        content_type=response.headers.get("content-type", "").split(";")[0] or None)
    for kind, validate in (("request", lambda: api.validate_request(mock_request)),
                           ("answer", lambda: api.validate_response(mock_request, mock_response))):
        try:
            validate()
        except Exception as error:  # openapi-core raises one class per kind of mismatch
            failures += 1
            cause = getattr(error, "__cause__", None) or error
            detail = getattr(cause, "schema_errors", None) or cause
            print(f"client-contract: {request.method} {url.path}: the {kind} breaks openapi.yaml: "
                  f"{type(error).__name__}: {detail}", file=sys.stderr)
            if kind == "answer":
                print(f"  answer {response.status_code}: {response.content[:400]!r}", file=sys.stderr)
if failures:
    sys.exit(f"client-contract: FAIL: {failures} of {2 * len(exchanges)} requests and answers break openapi.yaml")
print(f"client-contract: {len(exchanges)} exchanges, every request and answer valid against openapi.yaml")
