"""firebase_admin.auth against the emulator's Identity Toolkit routes."""

import base64
import json
import urllib.request
import uuid

import pytest
from firebase_admin import auth


@pytest.fixture
def unique():
    return uuid.uuid4().hex[:10]


def test_create_get_update_delete(app, unique):
    user = auth.create_user(uid=f"u-{unique}", email=f"Ada.{unique}@Example.com", password="secret1",
                            display_name="Ada", email_verified=True)
    assert user.uid == f"u-{unique}"
    assert user.email == f"ada.{unique}@example.com"
    assert user.display_name == "Ada" and user.email_verified and not user.disabled
    assert user.user_metadata.creation_timestamp > 0
    assert auth.get_user(user.uid).email == user.email
    assert auth.get_user_by_email(user.email).uid == user.uid

    updated = auth.update_user(user.uid, display_name="Ada Lovelace", disabled=True, photo_url=auth.DELETE_ATTRIBUTE)
    assert updated.display_name == "Ada Lovelace" and updated.disabled

    auth.set_custom_user_claims(user.uid, {"admin": True, "level": 3})
    assert auth.get_user(user.uid).custom_claims == {"admin": True, "level": 3}
    auth.set_custom_user_claims(user.uid, None)
    assert auth.get_user(user.uid).custom_claims is None

    auth.delete_user(user.uid)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid)


def test_errors_map_to_sdk_exceptions(app, unique):
    auth.create_user(uid=f"dup-{unique}", email=f"dup.{unique}@example.com")
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=f"dup-{unique}")
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=f"dup.{unique}@example.com")
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(f"nobody.{unique}@example.com")
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(f"nobody-{unique}")
    with pytest.raises(ValueError):
        auth.set_custom_user_claims(f"dup-{unique}", {"sub": "reserved"})


def test_list_users_in_pages(app, unique):
    uids = {f"list-{unique}-{i}" for i in range(5)}
    for uid in uids:
        auth.create_user(uid=uid)
    seen = set()
    page = auth.list_users(max_results=2)
    pages = 0
    while page:
        assert len(page.users) <= 2
        seen.update(user.uid for user in page.users)
        pages += 1
        page = page.get_next_page()
    assert uids <= seen and pages >= 3
    assert uids <= {user.uid for user in auth.list_users().iterate_all()}


# bcrypt("parse-password") at cost 10 in Parse's $2a$ form (made with libxcrypt's crypt()).
PARSE_HASH = b"$2a$10$abcdefghijklmnopqrstuu3wCsxB6/zKn6E0GfSu8Oxcxub8tCTka"


def sign_in(emulator, email, password):
    """The client REST sign-in a device SDK makes; returns (status, body)."""
    status, body, _ = emulator.request(
        "POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key",
        {"email": email, "password": password, "returnSecureToken": True},
    )
    return status, body


def test_import_bcrypt_users_sign_in_with_their_password(app, emulator, unique):
    auth.create_user(uid=f"taken-{unique}")
    users = [
        auth.ImportUserRecord(
            uid=f"parse-{unique}", email=f"parse.{unique}@example.com", display_name="parse-user",
            password_hash=PARSE_HASH,
            provider_data=[auth.UserProvider(uid=f"fb-{unique}", provider_id="facebook.com")],
            user_metadata=auth.UserMetadata(creation_timestamp=1_400_000_000_000),
        ),
        auth.ImportUserRecord(uid=f"taken-{unique}", email=f"taken.{unique}@example.com"),
    ]
    result = auth.import_users(users, hash_alg=auth.UserImportHash.bcrypt())
    assert result.success_count == 1 and result.failure_count == 1
    assert result.errors[0].index == 1

    imported = auth.get_user(f"parse-{unique}")
    assert imported.user_metadata.creation_timestamp == 1_400_000_000_000
    assert [p.provider_id for p in imported.provider_data if p.provider_id != "password"] == ["facebook.com"]

    status, body = sign_in(emulator, f"parse.{unique}@example.com", "parse-password")
    assert status == 200, body
    assert body["localId"] == f"parse-{unique}" and body["idToken"]
    assert auth.verify_id_token(body["idToken"])["uid"] == f"parse-{unique}"
    status, body = sign_in(emulator, f"parse.{unique}@example.com", "wrong-password")
    assert status == 400 and body["error"]["message"] == "INVALID_PASSWORD"
