"""What a paste must look like to be taken as an image path, and what bytes are an image."""

from __future__ import annotations

import pytest

from gemtui.tui.image_paste import checked_image, image_type, pasted_image_path


@pytest.mark.parametrize(
    ("pasted", "path"),
    [
        ("/home/me/shot.png", "/home/me/shot.png"),
        ("  shots/a.JPG\n", "shots/a.JPG"),
        ("'/home/me/my shot.webp' ", "/home/me/my shot.webp"),
        ('"/tmp/x y.gif"', "/tmp/x y.gif"),
        ("/home/me/my\\ shot.png", "/home/me/my shot.png"),
        ("file:///home/me/my%20shot.jpeg", "/home/me/my shot.jpeg"),
        ("look at the cat.png", None),  # a sentence, not a path
        ("notes.txt", None),
        ("a.png\nb.png", None),  # two lines: text
        ("", None),
    ],
)
def test_a_paste_is_an_image_path_only_when_it_is_one_path(pasted: str, path: str | None) -> None:
    assert pasted_image_path(pasted) == path


def test_the_bytes_decide_the_type_and_the_cap_holds() -> None:
    assert image_type(b"\x89PNG\r\n\x1a\nrest") == "image/png"
    assert image_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert image_type(b"GIF89a...") == "image/gif"
    assert image_type(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert image_type(b"<svg>") is None
    assert checked_image("x.png", b"<html>") == "x.png is not a PNG, JPEG, GIF or WebP image"
    huge = checked_image("big.png", b"\x89PNG\r\n\x1a\n" + bytes(20 * 1024 * 1024))
    assert huge == "big.png is 20,971,528 bytes, over the 20 MB limit for images"
