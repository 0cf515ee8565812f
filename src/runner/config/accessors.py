"""Typed snake_case properties of ``Config``. GENERATED from runner.schema.json: do not edit.

Regenerate with ``python -m runner.config.generate``.
"""

from __future__ import annotations

from typing import Any


class OptionAccessors:
    """One read-only property per option of runner.json (``config.base_url`` ...)."""

    # Over the ~250-line size target on purpose: a generated table with no other job, one
    # property per option of the schema, that grows with the schema (cut in parts it would
    # only be cut, not split: the options have no grouping of their own).

    __slots__ = ()

    def _value(self, key: str) -> Any:
        raise NotImplementedError

    @property
    def base_url(self) -> str | None:
        """``baseUrl``: URL used as the prefix of the URLs given to `visit` and `request` (a fully qualified http:// or https:// URL); trailing slashes beyond one are removed."""
        value: str | None = self._value("baseUrl")
        return value

    @property
    def env(self) -> dict[str, Any]:
        """``env``: Values made available to tests through `runner.env()` and `Runner.env()`; any JSON values."""
        value: dict[str, Any] = self._value("env")
        return value

    @property
    def ignore_test_files(self) -> str | list[str] | None:
        """``ignoreTestFiles``: Glob patterns (minimatch, `dot` and `matchBase`) of files under `integrationFolder` that are never loaded as test files."""
        value: str | list[str] | None = self._value("ignoreTestFiles")
        return value

    @property
    def num_tests_kept_in_memory(self) -> float:
        """``numTestsKeptInMemory``: Number of tests whose snapshots and command data are kept in memory (interactive runs)."""
        value: float = self._value("numTestsKeptInMemory")
        return value

    @property
    def port(self) -> int | None:
        """``port``: Port used to host the runner; null picks a free port."""
        value: int | None = self._value("port")
        return value

    @property
    def reporter(self) -> str:
        """``reporter``: Reporter used when running headlessly (`runner run`)."""
        value: str = self._value("reporter")
        return value

    @property
    def reporter_options(self) -> dict[str, Any] | None:
        """``reporterOptions``: Options of the reporter; which options exist depends on the reporter."""
        value: dict[str, Any] | None = self._value("reporterOptions")
        return value

    @property
    def slow_test_threshold(self) -> float:
        """``slowTestThreshold``: Milliseconds after which a test counts as slow; only affects how some reporters show the test time."""
        value: float = self._value("slowTestThreshold")
        return value

    @property
    def quarantine(self) -> list[str]:
        """``quarantine``: Tests whose failure does not fail the run: test ids (the spec's path relative to the project, `::`, the test's name, as pytest and the events file name it: `runner/integration/login_spec.py::test_sign_in`) or globs (minimatch, `matchBase`) over them."""
        value: list[str] = self._value("quarantine")
        return value

    @property
    def test_files(self) -> str | list[str]:
        """``testFiles``: Glob patterns (minimatch, `dot` and `matchBase`) of test files to load, relative to `integrationFolder`."""
        value: str | list[str] = self._value("testFiles")
        return value

    @property
    def watch_for_file_changes(self) -> bool:
        """``watchForFileChanges``: In `runner open`, watch test files and re-run tests when they change."""
        value: bool = self._value("watchForFileChanges")
        return value

    @property
    def default_command_timeout(self) -> float:
        """``defaultCommandTimeout``: Milliseconds most DOM-based commands retry before they time out."""
        value: float = self._value("defaultCommandTimeout")
        return value

    @property
    def exec_timeout(self) -> float:
        """``execTimeout``: Milliseconds to wait for a system command run by `exec`."""
        value: float = self._value("execTimeout")
        return value

    @property
    def task_timeout(self) -> float:
        """``taskTimeout``: Milliseconds to wait for a plugins-file task run by `task`."""
        value: float = self._value("taskTimeout")
        return value

    @property
    def page_load_timeout(self) -> float:
        """``pageLoadTimeout``: Milliseconds to wait for `visit`, `go` and `reload` (and page transitions) to fire their load events."""
        value: float = self._value("pageLoadTimeout")
        return value

    @property
    def request_timeout(self) -> float:
        """``requestTimeout``: Milliseconds `wait` waits for a request to go out."""
        value: float = self._value("requestTimeout")
        return value

    @property
    def response_timeout(self) -> float:
        """``responseTimeout``: Milliseconds to wait for a response in `request`, `wait`, `fixture`, the cookie commands and `screenshot`; also the default upstream timeout of intercepted requests."""
        value: float = self._value("responseTimeout")
        return value

    @property
    def file_server_folder(self) -> str:
        """``fileServerFolder``: Folder application files are served from, relative to the project root (`.` is the project root)."""
        value: str = self._value("fileServerFolder")
        return value

    @property
    def fixtures_folder(self) -> str | bool:
        """``fixturesFolder``: Folder of fixture files; false disables fixtures."""
        value: str | bool = self._value("fixturesFolder")
        return value

    @property
    def integration_folder(self) -> str:
        """``integrationFolder``: Folder of the e2e test files."""
        value: str = self._value("integrationFolder")
        return value

    @property
    def downloads_folder(self) -> str:
        """``downloadsFolder``: Folder where files downloaded during a test are saved."""
        value: str = self._value("downloadsFolder")
        return value

    @property
    def component_folder(self) -> str | bool:
        """``componentFolder``: Folder of the component specs, run by `runner run --component` (and never by an e2e run); false turns component testing off."""
        value: str | bool = self._value("componentFolder")
        return value

    @property
    def plugins_file(self) -> str | bool:
        """``pluginsFile``: Python file imported in the runner process to register tasks and event handlers and change the configuration; false disables it."""
        value: str | bool = self._value("pluginsFile")
        return value

    @property
    def screenshot_on_run_failure(self) -> bool:
        """``screenshotOnRunFailure``: Take a screenshot when a test fails during a headless run."""
        value: bool = self._value("screenshotOnRunFailure")
        return value

    @property
    def screenshots_folder(self) -> str:
        """``screenshotsFolder``: Folder where screenshots are saved."""
        value: str = self._value("screenshotsFolder")
        return value

    @property
    def update_snapshots(self) -> str | None:
        """``updateSnapshots``: When `match.screenshot` and `match.aria_snapshot` write their baselines (docs/snapshots.md): null writes a missing one and fails the test (under CI=true it writes nothing and fails), 'none' never writes, 'missing' writes missing ones, 'changed' also rewrites those that differ, 'all' rewrites every one compared."""
        value: str | None = self._value("updateSnapshots")
        return value

    @property
    def support_file(self) -> str | bool:
        """``supportFile``: Python file imported (as a pytest plugin) before any test file; false disables it."""
        value: str | bool = self._value("supportFile")
        return value

    @property
    def videos_folder(self) -> str:
        """``videosFolder``: Folder where videos of headless runs are saved."""
        value: str = self._value("videosFolder")
        return value

    @property
    def trash_assets_before_runs(self) -> bool:
        """``trashAssetsBeforeRuns``: Before a headless run, move the contents of screenshotsFolder, videosFolder and downloadsFolder to the trash (freedesktop trash where present, else deleted)."""
        value: bool = self._value("trashAssetsBeforeRuns")
        return value

    @property
    def video_compression(self) -> int | bool:
        """``videoCompression``: Constant Rate Factor of recorded videos: 0 to 51 (lower is better quality and larger files); true means 32; false skips compression (the lightest encoding that still plays)."""
        value: int | bool = self._value("videoCompression")
        return value

    @property
    def video(self) -> bool:
        """``video``: Record a video of each spec during a headless run."""
        value: bool = self._value("video")
        return value

    @property
    def video_upload_on_passes(self) -> bool:
        """``videoUploadOnPasses``: Keep the videos of specs whose tests all passed; false deletes them, keeping only videos of specs with a failure."""
        value: bool = self._value("videoUploadOnPasses")
        return value

    @property
    def events_file(self) -> str | bool:
        """``eventsFile``: JSON Lines file where `runner run` writes the run's events as they happen (`runner report --from` replays it through any reporter); false writes none."""
        value: str | bool = self._value("eventsFile")
        return value

    @property
    def history_runs(self) -> int:
        """``historyRuns``: Number of recent runs whose outcome per test `runner run` keeps in runner/history.json, for `runner flakes`, `--last-failed`, `--failed-first` and the HTML report's history strip (docs/flakes.md); 0 keeps no history."""
        value: int = self._value("historyRuns")
        return value

    @property
    def trace(self) -> str:
        """``trace``: Record a Playwright trace of each test (DOM snapshots before and after each action, network, console; runner's commands as its steps) and when to keep it: 'off', 'on' (every test), 'retain-on-failure' (recorded for every test, kept for failed ones), 'on-first-retry' (recorded only on a test's first retry)."""
        value: str = self._value("trace")
        return value

    @property
    def trace_screenshots(self) -> bool:
        """``traceScreenshots``: Put screenshots into the traces as well (a film strip in the trace viewer; costs about 45 ms more a traced test)."""
        value: bool = self._value("traceScreenshots")
        return value

    @property
    def traces_folder(self) -> str:
        """``tracesFolder``: Folder where traces are saved (`<tracesFolder>/<spec>/<test>.zip`)."""
        value: str = self._value("tracesFolder")
        return value

    @property
    def redact(self) -> dict[str, Any]:
        """``redact``: What runner shows as [redacted] in everything it writes or serves (the events file, every reporter, the HTML report, `runner open`, its steps in traces, `runner config`), beside what it always hides: the values of the env entries from runner.env.json and RUNNER_* variables, text typed with `log=False`, and the Authorization, Proxy-Authorization, Cookie and Set-Cookie headers."""
        value: dict[str, Any] = self._value("redact")
        return value

    @property
    def report_folder(self) -> str | bool:
        """``reportFolder``: Folder where `runner run` writes the HTML report of the run (open it with `runner show-report`); false writes none."""
        value: str | bool = self._value("reportFolder")
        return value

    @property
    def chrome_web_security(self) -> bool:
        """``chromeWebSecurity``: Keep the browser's same-origin policy and mixed-content protection on."""
        value: bool = self._value("chromeWebSecurity")
        return value

    @property
    def user_agent(self) -> str | None:
        """``userAgent``: User agent the browser sends instead of its own; null keeps the browser's."""
        value: str | None = self._value("userAgent")
        return value

    @property
    def block_hosts(self) -> str | list[str] | None:
        """``blockHosts``: Host globs (minimatch) whose traffic is blocked (answered with 503); null blocks nothing."""
        value: str | list[str] | None = self._value("blockHosts")
        return value

    @property
    def strict_network(self) -> bool | dict[str, Any]:
        """``strictNetwork``: Fail a test whose page made a request that no route (`runner.intercept`) matched, listing each: `true` checks every request but the static assets (documents, stylesheets, scripts, images, fonts, media, manifests, text tracks); an object names what is never checked: `allow` (URL globs, minimatch) and `allowTypes` (resource types; the static assets when left out)."""
        value: bool | dict[str, Any] = self._value("strictNetwork")
        return value

    @property
    def network_conditions(self) -> str | dict[str, Any] | None:
        """``networkConditions``: The page's network conditions in every test (a test changes them with `runner.network_conditions()`, for itself): a preset, `'slow-3g'` (400 kbit/s both ways, 2000 ms latency), `'fast-3g'` (1440 kbit/s down, 675 kbit/s up, 562.5 ms) or `'offline'`, or an object of `offline` (boolean), `latency` (milliseconds added to each request), `download` and `upload` (kilobits per second); null: the network as it is."""
        value: str | dict[str, Any] | None = self._value("networkConditions")
        return value

    @property
    def modify_obstructive_code(self) -> bool:
        """``modifyObstructiveCode``: Neutralise framebusting in the documents and scripts of pages framed inside the application (their `top`/`parent` checks and navigations stay inside their frame); false leaves them alone."""
        value: bool = self._value("modifyObstructiveCode")
        return value

    @property
    def viewport_height(self) -> float:
        """``viewportHeight``: Default viewport height in pixels (the `viewport` command changes it per test)."""
        value: float = self._value("viewportHeight")
        return value

    @property
    def viewport_width(self) -> float:
        """``viewportWidth``: Default viewport width in pixels (the `viewport` command changes it per test)."""
        value: float = self._value("viewportWidth")
        return value

    @property
    def animation_distance_threshold(self) -> float:
        """``animationDistanceThreshold``: Distance in pixels an element must move over time to count as animating."""
        value: float = self._value("animationDistanceThreshold")
        return value

    @property
    def wait_for_animations(self) -> bool:
        """``waitForAnimations``: Wait for elements to stop animating before acting on them."""
        value: bool = self._value("waitForAnimations")
        return value

    @property
    def scroll_behavior(self) -> bool | str:
        """``scrollBehavior``: Where an element is scrolled in the viewport before an action; false disables scrolling."""
        value: bool | str = self._value("scrollBehavior")
        return value

    @property
    def project_id(self) -> str | None:
        """``projectId``: 6-character identifier of the project in the original's hosted dashboard."""
        value: str | None = self._value("projectId")
        return value

    @property
    def node_version(self) -> str:
        """``nodeVersion``: DEPRECATED and ignored (accepted with a warning): the runtime used for the plugins file; 'bundled' or 'system'."""
        value: str = self._value("nodeVersion")
        return value

    @property
    def experimental_interactive_run_events(self) -> bool:
        """``experimentalInteractiveRunEvents``: Let the plugins file listen to before:run, after:run, before:spec and after:spec in `runner open` too."""
        value: bool = self._value("experimentalInteractiveRunEvents")
        return value

    @property
    def experimental_source_rewriting(self) -> bool:
        """``experimentalSourceRewriting``: Find framebusting by parsing the framed pages' JavaScript (tree-sitter) instead of regular expressions: indirect forms such as `window['top']` or an alias of `top` are caught too."""
        value: bool = self._value("experimentalSourceRewriting")
        return value

    @property
    def test_isolation(self) -> bool:
        """``testIsolation``: Make each test start clean: before it, the page goes to about:blank and the cookies of the browser and the storage (local, session, IndexedDB, Cache Storage) of every origin the last test's page visited are cleared."""
        value: bool = self._value("testIsolation")
        return value

    @property
    def experimental_session_support(self) -> bool:
        """``experimentalSessionSupport``: Enable the `session` command."""
        value: bool = self._value("experimentalSessionSupport")
        return value

    @property
    def experimental_fetch_polyfill(self) -> bool:
        """``experimentalFetchPolyfill``: Kept for compatibility and changes nothing: runner intercepts the page's fetch() natively, so no polyfill is installed (a notice says so at start when it is true)."""
        value: bool = self._value("experimentalFetchPolyfill")
        return value

    @property
    def experimental_studio(self) -> bool:
        """``experimentalStudio``: Generate test commands by interacting with the application (`runner open`)."""
        value: bool = self._value("experimentalStudio")
        return value

    @property
    def selector_priority(self) -> list[str]:
        """``selectorPriority``: Studio's order of selector strategies for a recorded element: attribute names (data-cy, data-test, data-testid, name, any other), then id, class, tag, attributes, nth-child; the first giving a selector that matches only that element wins."""
        value: list[str] = self._value("selectorPriority")
        return value

    @property
    def retries(self) -> int | dict[str, Any] | None:
        """``retries``: Retries of a failing test: a number for both modes, or {'runMode': n, 'openMode': n}; null means no retries."""
        value: int | dict[str, Any] | None = self._value("retries")
        return value

    @property
    def include_shadow_dom(self) -> bool:
        """``includeShadowDom``: Let querying commands see inside shadow DOM trees."""
        value: bool = self._value("includeShadowDom")
        return value

    @property
    def client_certificates(self) -> list[Any]:
        """``clientCertificates``: Client certificates sent to servers whose URL matches `url` (scheme, host glob, port, path glob), with the server verified against `ca`; paths are relative to the project root."""
        value: list[Any] = self._value("clientCertificates")
        return value

    @property
    def web_server(self) -> dict[str, Any] | list[Any] | None:
        """``webServer``: The app's own server(s), started by `runner run` and `runner open` before the first test and stopped (the whole process group) when they end: an entry or an array of entries, started in order."""
        value: dict[str, Any] | list[Any] | None = self._value("webServer")
        return value
