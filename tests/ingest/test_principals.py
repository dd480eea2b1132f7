"""Groups and users in namespaces of their own: the kind comes from where a name was read, never from the name."""
from __future__ import annotations

import pytest

from ingest.principals import group_principal, principals, user_principal

# Names an identity provider or a wiki may hand over as groups or as users, the hostile ones spelled like the
# other kind or like the ACL's own markers.
NAMES = ["hr-team", "abc", "user:abc", "group:abc", "group:user:abc", "user:user:abc", "evident:no-reader", ""]


def test_a_group_named_like_a_user_is_a_group():
    assert group_principal("user:abc") == "group:user:abc" != user_principal("abc")
    assert principals(["user:abc"], ["abc"]) == ["group:user:abc", "user:abc"]


def test_groups_keep_the_form_existing_indices_hold():
    assert principals(["hr-team", "eng"]) == ["hr-team", "eng"]


@pytest.mark.parametrize("group", NAMES)
@pytest.mark.parametrize("user", NAMES)
def test_no_group_is_spelled_like_any_user(group, user):
    assert group_principal(group) != user_principal(user)


@pytest.mark.parametrize("one", NAMES)
@pytest.mark.parametrize("other", NAMES)
def test_two_groups_are_spelled_alike_only_when_they_are_one(one, other):
    assert (group_principal(one) == group_principal(other)) == (one == other)


def test_no_group_claims_the_acl_marker():
    from core.index import NO_READER

    assert all(group_principal(name) != NO_READER for name in NAMES)
