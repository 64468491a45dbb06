"""``notebook create|list|show|delete`` through the Typer app on a real embedded database."""

from __future__ import annotations

import pytest
from cli_support import Invoke, json_of


def test_create_then_list_and_show(cli: Invoke) -> None:
    created = cli("--json", "notebook", "create", "Baking", "-d", "bread notes")
    assert created.exit_code == 0, created.output
    notebook = json_of(created)
    assert notebook["id"].startswith("notebook:")
    assert notebook["name"] == "Baking"

    listed = cli("notebook", "list", "--json")
    assert listed.exit_code == 0, listed.output
    rows = json_of(listed)["notebooks"]
    assert [(row["id"], row["sources"], row["notes"]) for row in rows] == [(notebook["id"], 0, 0)]

    shown = cli("notebook", "show", "baking")  # a name, case-insensitive
    assert shown.exit_code == 0, shown.output
    assert notebook["id"] in shown.stdout
    assert "bread notes" in shown.stdout


def test_delete_needs_yes_in_json_mode_and_then_removes(cli: Invoke) -> None:
    notebook = json_of(cli("--json", "notebook", "create", "Temp"))
    refused = cli("--json", "notebook", "delete", notebook["id"])
    assert refused.exit_code == 2
    assert "--yes" in json_of(refused)["error"]["message"]

    deleted = cli("--json", "notebook", "delete", notebook["id"], "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert json_of(deleted) == {"id": notebook["id"], "deleted": True}
    assert json_of(cli("--json", "notebook", "list"))["notebooks"] == []


def test_unknown_notebook_exits_2_with_a_hint(cli: Invoke) -> None:
    result = cli("notebook", "show", "no-such-notebook")
    assert result.exit_code == 2
    assert "no notebook has the id or name 'no-such-notebook'" in result.stderr
    assert "open-notebook notebook list" in result.stderr
    assert result.stdout == ""


def test_json_error_is_one_document_on_stdout(cli: Invoke) -> None:
    result = cli("--json", "notebook", "show", "notebook:x'; DELETE notebook; --")
    assert result.exit_code == 2
    error = json_of(result)["error"]
    assert error["type"] == "InvalidInputError"
    assert error["exit_code"] == 2


def test_empty_name_is_bad_input(cli: Invoke) -> None:
    result = cli("notebook", "create", "   ")
    assert result.exit_code == 2
    assert "name" in result.stderr


def test_usage_error_exits_2(cli: Invoke) -> None:
    result = cli("notebook", "create")
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_bad_settings_exit_2(cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_PORT", "not-a-port")
    result = cli("notebook", "list")
    assert result.exit_code == 2
    assert "invalid settings" in result.stderr
    assert "port" in result.stderr
