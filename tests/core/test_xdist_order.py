"""The suite's files go to pytest-xdist's workers slow first, then those that run a world or
declare a long bound, then the local model's, then the rest (which run beside the model); the
longest declared bound first within each group."""

from __future__ import annotations

from pathlib import Path

from tests.xdist_order import AFTER_THE_WORLDS, MODEL, file_weight, retires, slow_first


def _write(root: Path, name: str, text: str) -> str:
    (root / name).write_text(text)
    return name


def test_slow_then_world_then_the_model_beside_the_rest(tmp_path: Path) -> None:
    many = _write(tmp_path, "test_many.py", "def test_a(): pass\n" * 40)
    slow_short = _write(
        tmp_path, "test_slow_short.py", "pytestmark = pytest.mark.slow\n@pytest.mark.timeout(150)\n"
    )
    slow_long = _write(
        tmp_path,
        "test_slow_long.py",
        "@pytest.mark.timeout(60)\n@pytest.mark.slow\n@pytest.mark.timeout(900)\n",
    )
    bounded = _write(tmp_path, "test_bounded.py", "@pytest.mark.timeout(300)\n")
    world = _write(tmp_path, "test_world.py", "pytestmark = pytest.mark.minecraft\n")
    (tmp_path / "server").mkdir()
    in_folder = _write(tmp_path, "server/test_in_folder.py", "def test_c(): pass\n")
    plain = _write(tmp_path, "test_plain.py", "def test_b(): pass\n")
    model = _write(
        tmp_path,
        "test_model.py",
        "pytestmark = [pytest.mark.slow, pytest.mark.cpu_bound]\n@pytest.mark.timeout(1200)\n",
    )
    scopes = [model, many, slow_short, plain, in_folder, bounded, world, slow_long]
    order = slow_first(scopes, tmp_path, 120)
    assert order == [slow_long, slow_short, bounded, in_folder, world, model, many, plain]


def test_a_file_without_marks_keeps_its_place_and_a_missing_one_goes_last(tmp_path: Path) -> None:
    a = _write(tmp_path, "test_a.py", "")
    b = _write(tmp_path, "test_b.py", "")
    assert slow_first([b, "gone/test_x.py", a], tmp_path, 120) == [b, a, "gone/test_x.py"]
    assert file_weight(tmp_path / "test_a.py", 120) == (0, 120)


def test_workers_beyond_two_retire_when_only_the_model_and_the_rest_are_left() -> None:
    assert not retires(active=3, next_group=3) and not retires(active=3, next_group=2)
    assert retires(active=3, next_group=MODEL) and retires(active=3, next_group=0)
    assert not retires(active=AFTER_THE_WORLDS, next_group=MODEL)
    assert not retires(active=AFTER_THE_WORLDS, next_group=0)
