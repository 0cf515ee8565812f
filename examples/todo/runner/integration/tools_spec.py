"""Fixtures, env, requests made by the test, system commands and plugin tasks."""


def test_reads_env_from_the_config_and_the_plugins_file(runner):
    assert runner.env("greeting") == "Hello from runner.json"
    assert runner.env("fromPlugins") is True


def test_reads_a_fixture(runner):
    users = runner.fixture("users.json")
    assert [u["name"] for u in users][:1] == ["Alan Turing"]


def test_requests_the_api_from_the_test(runner):
    response = runner.request("/api/users.json")
    assert response.status == 200
    assert response.body[1]["name"] == "Grace Hopper"


def test_runs_a_command_and_a_task(runner):
    result = runner.exec("echo ready")
    assert result.code == 0 and result.stdout == "ready"
    assert runner.task("remember", "first") == 1
    assert runner.task("remembered") == ["first"]
