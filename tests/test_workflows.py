"""The GitHub Actions workflows: deploy on main, checks on pull requests, least privilege."""

from __future__ import annotations

from pathlib import Path

import yaml

WORKFLOWS = Path(__file__).resolve().parents[1] / ".github" / "workflows"


def _load(name: str) -> dict:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def _uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in job["steps"] if "uses" in step]


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_deploy_on_push_to_main_with_official_pages_actions():
    workflow = _load("deploy.yml")
    assert workflow["on"]["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read"}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert "actions/upload-pages-artifact" in _uses(build)
    assert "actions/deploy-pages" in _uses(deploy)
    assert deploy["needs"] == "build"
    commands = _runs(build)
    for expected in ('pip install -e ".[dev]"', "pytest", "ffsite build"):
        assert expected in commands
    assert commands.index("pytest") < commands.index("ffsite build")


def test_only_the_deploy_job_may_write():
    workflow = _load("deploy.yml")
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "permissions" not in workflow["jobs"]["build"]


def test_pull_requests_validate_test_build_and_upload_a_preview():
    workflow = _load("pull-request.yml")
    assert set(workflow["on"]) == {"pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        assert job.get("permissions", {}) in ({}, {"contents": "read"})
        commands = _runs(job)
        assert "validate-changed.sh" in commands
        assert "pytest" in commands and "ffsite build" in commands
        assert "actions/upload-artifact" in _uses(job)


def test_no_workflow_runs_pull_request_code_with_write_access():
    for path in WORKFLOWS.glob("*.yml"):
        text = path.read_text()
        assert "pull_request_target" not in text, path.name
        workflow = _load(path.name)
        if "pull_request" in workflow["on"]:
            assert "write" not in str(workflow.get("permissions", {}))
            for job in workflow["jobs"].values():
                assert "write" not in str(job.get("permissions", {}))


def test_every_action_is_pinned_to_a_commit():
    import re

    for path in WORKFLOWS.glob("*.yml"):
        for job in _load(path.name)["jobs"].values():
            for step in job["steps"]:
                if "uses" in step:
                    assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), (
                        path.name, step["uses"])
