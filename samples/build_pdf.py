"""Rebuild samples/pdf/field-service-manual.pdf (a 3-page text PDF) with PyMuPDF.

    .venv/bin/python samples/build_pdf.py

Deterministic: fixed metadata dates, no fresh file id, reproducible save, so a rebuild
with the same PyMuPDF version gives the same bytes. Fonts are PyMuPDF's built-in Helvetica
("helv" body, "hebo" bold headings), written with a TextWriter so that the em dash and the
bullets survive (subset-embedded as Type0 fonts; the text layer extracts as Unicode).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pymupdf

OUT = Path(__file__).resolve().parent / "pdf" / "field-service-manual.pdf"

RUNNING_HEADER = "Lumen Harbor \u2014 Field Service Manual"
FIXED_DATE = "D:20250310090000+01'00'"
WIDTH, HEIGHT = pymupdf.paper_size("a4")
MARGIN = 64
BODY_SIZE = 10.5
LEADING = 1.35  # line height as a multiple of the font size

# Each page: a list of (style, text); styles: title, subtitle, chapter, section, body, bullet.
PAGES: list[list[tuple[str, str]]] = [
    [
        ("title", "TideSense Field Service Manual"),
        ("subtitle", "For field technicians of Lumen Harbor GmbH \u00b7 Edition March 2025"),
        ("chapter", "1  Safety and preparation"),
        ("body", "Servicing a TideSense buoy always takes two people: one technician on the buoy and "
                 "one on the service boat who keeps the line and the radio. Wear a self-inflating life "
                 "jacket and a harness clipped to the buoy's mast whenever you leave the boat."),
        ("section", "1.1  Service mode"),
        ("body", "Before you open the hull, switch the buoy to service mode: hold the magnetic key against "
                 "the SERVICE mark below the solar panel for five seconds until the status light turns "
                 "amber. In service mode the buoy stops its hourly uplink and the sensors are powered down, "
                 "so the gateway raises no alarms during the visit."),
        ("section", "1.2  What to bring"),
        ("bullet", "the magnetic service key and the service tablet with the current app"),
        ("bullet", "a spare sensor head, O-rings and silicone grease for the hull seals"),
        ("bullet", "the reference solutions for calibration, kept at room temperature"),
    ],
    [
        ("chapter", "2  Sensor maintenance"),
        ("body", "Every buoy carries a temperature sensor, a conductivity cell for salinity and a pressure "
                 "sensor for wave height. Barnacles and algae are the main reason for drifting readings, so "
                 "each service visit starts with cleaning and ends with a calibration check."),
        ("section", "2.1  Cleaning"),
        ("body", "Rinse the sensor cage with fresh water, then remove growth with the soft brush. Never use "
                 "a scraper on the conductivity cell: a scratched electrode reads too high for the rest of "
                 "its life and must be replaced."),
        ("section", "2.2  Salinity probe calibration"),
        ("body", "To recalibrate the salinity probe, immerse it in the 35 PSU reference solution for twelve "
                 "minutes, then confirm the reading in the service app. The app accepts the calibration when "
                 "the reading stays within 0.05 PSU of the reference for one minute. If it does not settle, "
                 "clean the cell again and repeat once; after a second failure, fit the spare sensor head."),
        ("section", "2.3  Temperature check"),
        ("body", "Compare the buoy temperature with the handheld reference thermometer held at the same "
                 "depth. A difference of more than 0.2 \u00b0C means the sensor has to go back to the "
                 "workshop."),
    ],
    [
        ("chapter", "3  Batteries and returns"),
        ("section", "3.1  Replacing the battery pack"),
        ("body", "Replace the battery pack when the capacity test in the service app shows less than 80 "
                 "percent of the rated capacity. Disconnect the solar panel first, then the pack. Fit the new "
                 "pack, reconnect in the reverse order and check that the charge indicator shows charging "
                 "within two minutes."),
        ("section", "3.2  Returning a unit"),
        ("body", "Units that cannot be repaired at sea go back to the workshop at Pier 4. Request a return "
                 "number in the service portal before the trip, attach the label to the transport case and "
                 "note the buoy serial and the fault in the return form."),
        ("section", "3.3  Leaving the buoy"),
        ("bullet", "close the hull and check both seals"),
        ("bullet", "end service mode with the magnetic key: the status light turns green"),
        ("bullet", "wait for the first uplink to arrive at the gateway before the boat leaves"),
    ],
]

STYLES = {  # font, size, space before, space after
    "title": ("hebo", 24, 40, 6),
    "subtitle": ("helv", 12, 0, 30),
    "chapter": ("hebo", 16, 14, 8),
    "section": ("hebo", 12.5, 10, 4),
    "body": ("helv", BODY_SIZE, 0, 6),
    "bullet": ("helv", BODY_SIZE, 0, 2),
}


def wrap(text: str, font: pymupdf.Font, size: float, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and font.text_length(candidate, fontsize=size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def build(path: Path = OUT) -> Path:
    doc = pymupdf.open()
    fonts = {"helv": pymupdf.Font("helv"), "hebo": pymupdf.Font("hebo")}
    total = len(PAGES)
    for number, blocks in enumerate(PAGES, 1):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        writer = pymupdf.TextWriter(page.rect)
        grey = (0.35, 0.35, 0.35)
        # Running header first and footer last, so that the text layer reads top to bottom.
        writer.append((MARGIN, 40), RUNNING_HEADER, font=fonts["helv"], fontsize=9)
        writer.write_text(page, color=grey)
        page.draw_line((MARGIN, 46), (WIDTH - MARGIN, 46), color=(0.6, 0.6, 0.6), width=0.5)
        writer = pymupdf.TextWriter(page.rect)
        y = 90.0
        for style, text in blocks:
            fontname, size, before, after = STYLES[style]
            indent = 14 if style == "bullet" else 0
            y += before
            lines = wrap(text, fonts[fontname], size, WIDTH - 2 * MARGIN - indent)
            for i, line in enumerate(lines):
                y += size * LEADING
                if style == "bullet" and i == 0:
                    writer.append((MARGIN + 3, y), "\u2022", font=fonts["helv"], fontsize=size)
                writer.append((MARGIN + indent, y), line, font=fonts[fontname], fontsize=size)
            y += after
            if y > HEIGHT - 80:
                raise ValueError(f"page {number} overflows; shorten its text")
        writer.write_text(page)
        writer = pymupdf.TextWriter(page.rect)
        footer = f"Page {number} of {total}"
        footer_width = fonts["helv"].text_length(footer, fontsize=9)
        writer.append(((WIDTH - footer_width) / 2, HEIGHT - 36), footer, font=fonts["helv"], fontsize=9)
        writer.write_text(page, color=grey)
    doc.set_metadata({
        "title": "TideSense Field Service Manual",
        "author": "Lumen Harbor GmbH",
        "subject": "Service of TideSense buoys at sea",
        "keywords": "TideSense, field service, calibration, battery",
        "creator": "samples/build_pdf.py",
        "producer": "PyMuPDF",
        "creationDate": FIXED_DATE,
        "modDate": FIXED_DATE,
    })
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.subset_fonts()
    doc.save(path, garbage=4, deflate=True, no_new_id=True, reproducible=True)
    doc.close()
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
