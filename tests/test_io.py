"""The ground floor's atomic writes (privrl.io): an interrupted write leaves nothing behind."""

import pytest

from privrl import io


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with io.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    io.write_text(target, "whole")
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]
