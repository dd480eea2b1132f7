"""Who may read a Confluence page: its own read restriction, its restricted ancestors', its space's.

Confluence lets a reader see a page only when every restriction on the way down admits them: the page's
own, each restricted ancestor's, and the space's permissions. The index keeps them as levels
(``SourceFile.acl`` for the page's own, ``SourceFile.acl_inherited`` for the rest), each matched on its
own by the search filter, groups and users each in their namespace (``ingest.principals``). Space
permissions are not in the page JSON: a space that is not open to every reader gets its groups from the
source's settings (``--space-groups ENG=eng,contractors``).
"""
from __future__ import annotations

from typing import Callable

from ingest.principals import principals
from workers.connectors.confluence.models import PageRef


def own_level(page: PageRef) -> list[str]:
    return principals(page.read_groups, page.read_users)


def inherited_levels(page: PageRef, restriction_of: Callable[[str], list[str]],
                     space_groups: dict[str, list[str]]) -> list[list[str]]:
    """The restrictions above the page: each restricted ancestor's (root first), then its space's groups.

    ``restriction_of(ancestor_id)`` gives an ancestor's own principals (empty when unrestricted).
    """
    levels = [level for level in (restriction_of(ancestor) for ancestor in page.ancestors) if level]
    if space_groups.get(page.space):
        levels.append(principals(space_groups[page.space]))
    return levels


def parse_space_groups(spec: str) -> dict[str, list[str]]:
    """``ENG=eng,contractors;HR=hr`` -> {"ENG": ["eng", "contractors"], "HR": ["hr"]}.

    ``ValueError`` names the part that is not ``SPACE=group[,group]``.
    """
    result: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        space, sep, groups = part.partition("=")
        names = [g.strip() for g in groups.split(",") if g.strip()]
        if not sep or not space.strip() or not names:
            raise ValueError(f"space groups {part!r}: expected SPACE=group[,group] (spaces separated by ';')")
        result[space.strip()] = names
    return result
