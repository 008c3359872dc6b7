#!/usr/bin/env python3
"""An OAuth2 access token for a service account, as the relay's FCM client gets one
(RFC 7523: a JWT assertion signed RS256 with the account's private key, POSTed to its
token_uri), so that h2load can send FCM requests the simulator accepts. The key reaches
`openssl dgst -sign` through a temporary file only this user can read; only the access
token is printed.

usage: fcm_access_token.py SERVICE_ACCOUNT_JSON CA_FILE
"""
import base64, json, os, ssl, subprocess, sys, tempfile, time, urllib.parse, urllib.request

account_path, ca_file = sys.argv[1:3]
account = json.load(open(account_path))
b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
now = int(time.time())
header = {"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}
claims = {"iss": account["client_email"], "scope": "https://www.googleapis.com/auth/firebase.messaging",
          "aud": account["token_uri"], "iat": now, "exp": now + 3600}
signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
with tempfile.NamedTemporaryFile("w", suffix=".pem") as key:  # mode 0600
    key.write(account["private_key"])
    key.flush()
    signature = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key.name], input=signing_input.encode(),
                               capture_output=True, check=True).stdout
form = urllib.parse.urlencode({"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                               "assertion": signing_input + "." + b64(signature)}).encode()
request = urllib.request.Request(account["token_uri"], data=form,
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
tls = ssl.create_default_context(cafile=ca_file)
tls.set_alpn_protocols(["http/1.1"])  # fcm-sim speaks HTTP/2 to a client that names nothing
with urllib.request.urlopen(request, context=tls, timeout=10) as reply:
    print(json.load(reply)["access_token"])
