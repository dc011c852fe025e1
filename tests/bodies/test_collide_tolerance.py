"""Our bodies collide as a vanilla client does. prismarine-physics let a box standing on a
block's face slip into the block when a floating-point error put its edge past the face
(x = -2.3: edge -1.9999999999999998), and the server's movement check then put the body back
at every step ("moved wrongly" 50 times for one body of the village, 329 on the skills
bench). bots/body/lib/collide_epsilon.js gives the physics vanilla's 1e-7 tolerance."""

from __future__ import annotations

from tests.server.conftest import run_js


def test_a_body_on_a_blocks_face_stays_out_of_the_block() -> None:
    plain = run_js("../../bodies/js/collide_check.js", "plain")
    assert plain["east"] == 0.02 and plain["west"] == -0.02  # the slip, without the body
    body = run_js("../../bodies/js/collide_check.js", "body")
    for case in ("east", "west", "north"):
        assert abs(body[case]) < 1e-9, (case, body)
    assert body["free"] == 0.02, body  # a block farther away does not stop the move
