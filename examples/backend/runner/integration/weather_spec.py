"""The app's server calls an outside API: its calls spied on, stubbed and rewritten with
runner.intercept_backend(), the page checked in the browser."""


def test_shows_the_real_forecast(runner, weather_app):
    # no route: the app's call goes to the API untouched (and is recorded nowhere)
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Sunny")


def test_stubs_the_weather_api_on_the_server(runner, weather_app):
    runner.intercept_backend("GET", "**/forecast?*", {"body": {"city": "Lisbon", "summary": "Snow", "high": -3}})
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Snow")
    runner.get("#high").should("have.text", "-3")


def test_waits_on_the_servers_call_by_alias(runner, weather_app):
    runner.intercept_backend("GET", "**/forecast?*").as_("forecast")
    runner.visit(weather_app)
    call = runner.wait("@forecast")
    assert "city=Lisbon" in call.request.url
    assert call.response.status_code == 200
    assert call.response.body["summary"] == "Sunny"


def test_rewrites_the_apis_answer(runner, weather_app):
    def rainy(req):
        req.continue_(lambda res: res.body.update(summary="Rain"))

    runner.intercept_backend("GET", "**/forecast?*", rainy)
    runner.visit(weather_app)
    runner.get("#summary").should("have.text", "Rain")


def test_shows_an_error_when_the_api_fails(runner, weather_app):
    runner.intercept_backend("GET", "**/forecast?*", {"statusCode": 503, "body": "down"}).as_("forecast")
    runner.visit(weather_app)
    runner.get("#error").should("contain", "503")
    runner.requests("@forecast").should("have.length", 1)
