"""Security rules with the official firebase-admin SDK: its databaseAuthVariableOverride option
makes the emulator check an admin client's requests as the given user (or as signed out)."""

import urllib.request
import uuid

import firebase_admin
import pytest
from firebase_admin import db, exceptions

from conftest import PROJECT

RULES = """{
  // each player writes only their own profile
  "rules": {
    "profiles": {
      "$uid": {
        ".read": "auth != null",
        ".write": "auth != null && auth.uid == $uid",
        ".validate": "newData.hasChildren(['name']) && newData.child('name').isString()"
      }
    }
  }
}"""


@pytest.fixture
def rules(emulator):
    request = urllib.request.Request(emulator.base + "/.settings/rules.json", data=RULES.encode(), method="PUT")
    request.add_header("Authorization", "Bearer owner")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    yield
    request = urllib.request.Request(emulator.base + "/.settings/rules.json",
                                     data=b'{"rules": {".read": true, ".write": true}}', method="PUT")
    request.add_header("Authorization", "Bearer owner")
    urllib.request.urlopen(request, timeout=30).close()


def client_app(override):
    return firebase_admin.initialize_app(
        options={"databaseURL": f"https://{PROJECT}-default-rtdb.firebaseio.com", "projectId": PROJECT,
                 "databaseAuthVariableOverride": override},
        name=f"as-{uuid.uuid4().hex[:8]}",
    )


def test_auth_variable_override_is_checked_against_the_rules(app, rules):
    ada = client_app({"uid": "ada"})
    anonymous = client_app(None)
    try:
        db.reference("/profiles/ada", app=ada).set({"name": "Ada"})
        assert db.reference("/profiles/ada", app=ada).get() == {"name": "Ada"}
        with pytest.raises(exceptions.UnauthenticatedError) as denied:
            db.reference("/profiles/bob", app=ada).set({"name": "not Ada's"})
        assert "Permission denied" in str(denied.value)
        with pytest.raises(exceptions.UnauthenticatedError):
            db.reference("/profiles/ada", app=ada).set({"nickname": "no name"})   # .validate
        with pytest.raises(exceptions.UnauthenticatedError):
            db.reference("/profiles/ada", app=anonymous).get()                  # None is signed out
        # The default app (no override) is an administrator: the rules do not apply.
        db.reference("/profiles/bob").set({"anything": True})
        assert db.reference("/profiles").get() == {"ada": {"name": "Ada"}, "bob": {"anything": True}}
    finally:
        firebase_admin.delete_app(ada)
        firebase_admin.delete_app(anonymous)
