#!/usr/bin/env python3
"""Blind readings of theme fields (templates/themes/field-readings.json).

A field's phrase is used in frontier clues only when blind readers read it as the theme does
(the test `fields_read_alike_by_blind_readers` in fabula-world checks every field against the
readings). To read new phrases:

  scripts/field-readings.py items OUT_DIR THEME:SIDE:PHRASE ...
      writes OUT_DIR/items.json (what `merge` reads) and OUT_DIR/for-readers.json: each
      phrase in its sentence ("a guild (an organisation) of the textile crafts") with the
      theme's whole list of names (SIDE is person or organisation). Give for-readers.json to
      each reader, who answers with a JSON list of {"item": N, "covered": [names]} and sees
      nothing else: no world, no source, no other reader.
  scripts/field-readings.py merge OUT_DIR/items.json READER.json ...
      adds each phrase's readings to the readings file (FIELD_READINGS overrides its path): to
      the phrase's entry when it was read before, else as a new entry.
"""
import json
import os
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
THEMES = ROOT / "templates" / "themes"
READINGS = pathlib.Path(os.environ.get("FIELD_READINGS", THEMES / "field-readings.json"))


def items(out_dir, specs):
    full, shown = [], []
    for i, spec in enumerate(specs):
        theme_id, side, phrase = spec.split(":", 2)
        theme = tomllib.loads((THEMES / f"{theme_id}.toml").read_text())
        shape = theme[side]
        noun = shape["singular"]
        a = "an" if noun[0] in "aeiou" else "a"
        if side == "person":
            names = shape["occupations"]
            sentence = f"{a} {noun} (a person) who worked {phrase}"
        else:
            names = shape["categories"]
            sentence = f"{a} {noun} (an organisation) {phrase}"
        full.append({"item": i, "theme": theme_id, "side": side, "phrase": phrase, "options": names})
        shown.append({"item": i, "setting": theme["label"], "phrase": sentence, "options": names})
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "items.json").write_text(json.dumps(full, indent=1) + "\n")
    (out / "for-readers.json").write_text(json.dumps(shown, indent=1) + "\n")


def merge(items_file, reader_files):
    specs = json.loads(pathlib.Path(items_file).read_text())
    readers = [{a["item"]: a for a in json.loads(pathlib.Path(f).read_text())} for f in reader_files]
    doc = json.loads(READINGS.read_text())
    for item in specs:
        covered = [sorted(r[item["item"]]["covered"], key=item["options"].index) for r in readers]
        key = (item["theme"], item["side"], item["phrase"])
        # A phrase read before gets these readers added to its entry (the test reads the first
        # entry of a phrase, so a second entry would never count).
        known = [r for r in doc["readings"] if (r["theme"], r["side"], r["phrase"]) == key]
        if known:
            known[0]["readers"].extend(covered)
        else:
            doc["readings"].append({"theme": item["theme"], "side": item["side"],
                                    "phrase": item["phrase"], "readers": covered})
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in doc["readings"])
    READINGS.write_text('{"readings": [\n' + lines + "\n]}\n")


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "items":
        items(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) > 3 and sys.argv[1] == "merge":
        merge(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
