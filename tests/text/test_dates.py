from text.dates import date_tokens


def test_the_same_day_in_every_format_gives_the_same_token():
    for text in ("Wer fehlte am 5. Februar 2025?", "2025-02-05 Hypervisor Weekly Sync", "on February 5, 2025",
                 "el 5 de febrero de 2025", "05.02.2025", "5th Feb 2025"):
        assert date_tokens(text)[:2] == ["2025-02-05", "--02-05"], text


def test_a_date_without_year_meets_full_dates_by_month_and_day():
    assert date_tokens("between the 8 January and the 19 February sync") == ["--01-08", "--02-19"]
    assert "--01-08" in date_tokens("2025-01-08 Hypervisor Weekly Sync")


def test_version_numbers_and_plain_years_are_not_dates():
    assert date_tokens("HVX 4.1.2 was released in 2025 with build 4.1.2-2231") == []
    assert date_tokens("Invalid 2025-13-45") == []
