"""Spying on and stubbing the app's requests with runner.intercept()."""


def test_spies_on_the_todos_request(runner):
    runner.intercept("GET", "/api/todos.json").as_("todos")
    runner.visit("/")
    todos = runner.wait("@todos")
    assert todos.response.status_code == 200
    assert len(todos.response.body) == 2


def test_stubs_users_with_a_fixture(runner):
    runner.intercept("GET", "/api/users.json", {"fixture": "users.json"}).as_("users")
    runner.visit("/")
    runner.get("#load-users").click()
    runner.wait("@users")
    runner.get("li.user").should("have.length", 3).first().should("have.text", "Alan Turing")


def test_shows_an_error_when_the_api_fails(runner):
    runner.intercept("/api/users.json", {"statusCode": 500, "body": "down"})
    runner.visit("/")
    runner.get("#load-users").click()
    runner.get("#users-error").should("be.visible")


def test_rewrites_a_real_response(runner):
    def add_user(req):
        req.continue_(lambda res: res.body.append({"id": 3, "name": "Katherine Johnson"}))

    runner.intercept("/api/users.json", add_user).as_("users")
    runner.visit("/")
    runner.get("#load-users").click()
    runner.wait("@users").its("response.body").should("have.length", 3)
    runner.contains("Katherine Johnson").should("be.visible")
