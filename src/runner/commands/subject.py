"""Retrying subjects: what ``runner.get()``, ``runner.contains()`` and ``runner.mount()`` return.

A :class:`Subject` is a recipe (a list of query steps) rather than a handle: every assertion,
read or action runs the recipe again in the page until it holds, so a test never races the app.
A :class:`~runner.commands.values.Value` does the same for data that is not DOM (``its``,
``invoke``, ``wrap``).

The subject's commands come in families, a module each, over the recipe (``dom_query.py``):

===============  ==============================================================================
``should.py``    ``should``, ``and_``: assertions, retried
``traversal.py`` ``find``, ``contains``, ``first``, ``eq``, ``filter``, ``parent``, ...: other elements
``iteration.py`` ``each``, ``spread``, unpacking: the elements one by one
``reads.py``     ``text``, ``attr``, ``value``, ``its``, ``invoke``, ``as_``, ``then``: what it yields
``actions.py``   ``click``, ``hover``, ``trigger``, ``scroll_to``, ``screenshot``, ...: the pointer
``forms.py``     ``type``, ``clear``, ``check``, ``select``, ``select_file``: form input
===============  ==============================================================================
"""

from __future__ import annotations

from runner.commands.forms import FormInput
from runner.commands.iteration import Iteration
from runner.commands.reads import Reads
from runner.commands.should import DomAssertions
from runner.commands.traversal import Traversal

__all__ = ["Subject"]


class Subject(DomAssertions, Iteration, Traversal, Reads, FormInput):
    """A DOM query that re-runs until what is asked of it holds.

    A test chains its commands on one object (``get(...).click().should(...)``), so each family
    is a base class of it, not an object it hands calls to. The families share only the recipe
    (:class:`~runner.commands.dom_query.DomQuery`) and return the subject they are part of
    (``Self``); form input builds on the pointer actions, iteration on traversal (``eq``), the
    others on nothing but the recipe.
    """
