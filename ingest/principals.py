"""Who a read restriction names: groups and users in namespaces of their own, whatever their names.

An evidence's read restrictions (``acl`` and the index's ``acl_level_*`` fields) and a caller's principals
are strings the search filter matches exactly, so a group and a user must never be spelled alike. The kind
of a principal comes from where its name was read (a restriction's group or user list, a token's groups claim
or its subject), never from the name itself:

- a user is ``user:<id>``, always;
- a group is its name as it is, the form every index has stored for groups, unless the name starts with one
  of the prefixes ours to give (``RESERVED_PREFIXES``): then ``group:<name>``.

So a group named ``user:abc`` is ``group:user:abc`` and never admits user abc, a user whose id is ``hr-team``
is ``user:hr-team`` and never a member of that group, and a group cannot claim the ACL's own markers
(``core.index.NO_READER``). Group names without those prefixes keep their stored form, so an index written
before the namespaces were kept apart needs no re-ingest for them.
"""
from __future__ import annotations

from collections.abc import Iterable

USER_PREFIX = "user:"
GROUP_PREFIX = "group:"
MARKER_PREFIX = "evident:"  # markers of our own in an ACL, never a group's or a user's name
RESERVED_PREFIXES = (USER_PREFIX, GROUP_PREFIX, MARKER_PREFIX)


def user_principal(user_id: str) -> str:
    """How a user is named in an ACL: ``user:<id>``."""
    return USER_PREFIX + user_id


def group_principal(name: str) -> str:
    """How a group is named in an ACL: its name, or ``group:<name>`` when the name starts with a reserved prefix."""
    return GROUP_PREFIX + name if name.startswith(RESERVED_PREFIXES) else name


def principals(groups: Iterable[str], users: Iterable[str] = ()) -> list[str]:
    """One restriction's principals (or one caller's): its groups, then its users, each in its namespace."""
    return list(dict.fromkeys([*map(group_principal, groups), *map(user_principal, users)]))
