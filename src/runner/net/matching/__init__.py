"""Where a request is matched: the RouteMatcher of ``runner.intercept()``, one class per field.

- ``route_matcher.py``: the RouteMatcher itself: the table of fields, validating a user's dict,
  the compiled matcher the chain asks (``match``, ``match_preflight``, ``describe``);
- ``view.py``: the request as the fields read it (:class:`MatchView`, built once per request);
- ``base.py``: what a field is (validate, compile, match, describe);
- ``text.py``: the glob-or-regex text pattern most fields take;
- ``url_fields.py``: ``url``, ``path``, ``pathname``, ``hostname``, ``port``, ``https``, ``query``;
- ``request_fields.py``: ``method``, ``headers``, ``auth``, ``resourceType``;
- ``body.py``: ``json`` and ``graphql``, and the body pattern rule;
- ``route_options.py``: ``times`` and ``middleware``, keys of the route given in its matcher.
"""

from __future__ import annotations

from .route_matcher import (
    ROUTE_MATCHER_KEYS,
    CompiledMatcher,
    is_route_matcher_dict,
    validate_route_matcher,
)
from .view import MatchView

__all__ = ["ROUTE_MATCHER_KEYS", "MatchView", "CompiledMatcher", "validate_route_matcher", "is_route_matcher_dict"]
