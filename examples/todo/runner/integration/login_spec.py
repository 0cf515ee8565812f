"""Signing in through storage: the app reads who is signed in from localStorage when it starts,
so a hook of visit sets it before the app's scripts run (no log-in form to click through)."""


def test_signs_in_with_a_python_hook(runner):
    def sign_in(win):
        win.local_storage.set_item("user", "Ada")

    runner.visit("/index.html", on_before_load=sign_in)
    runner.get("#who").should("have.text", "Signed in as Ada")
    assert runner.get_local_storage("user") == "Ada"


def test_signs_in_with_javascript(runner):
    runner.visit("/index.html", on_before_load="win => win.localStorage.setItem('user', 'Grace')")
    runner.get("#who").should("have.text", "Signed in as Grace")


def test_signs_in_by_setting_storage_then_reloading(runner):
    runner.visit("/index.html")
    runner.get("#who").should("have.text", "Not signed in")
    runner.set_local_storage("user", "Linus")
    runner.reload()
    runner.get("#who").should("have.text", "Signed in as Linus")


def test_every_test_starts_signed_out(runner):
    # Between tests runner clears cookies, local and session storage: no test sees another's user.
    runner.visit("/index.html")
    runner.get("#who").should("have.text", "Not signed in")
    assert runner.get_all_local_storage() == {}
