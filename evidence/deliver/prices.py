"""Dated prices of compute: ``prices.toml`` (schema ``prices``) and how old each price is.

A price is only as good as the day it was checked, so each one carries that date and its
source::

    max_age_days = 180            # older prices are disclosed by the disclosure gate

    [prices.cpu]
    per_hour = 0.0425             # one device-hour; for cpu a device is one core (thread)
    unit = "core"
    currency = "USD"
    checked = 2026-10-01          # a TOML date
    source = "https://... (on-demand price of ..., divided by its vCPUs)"

Keys are device kinds as the compute ledger records them: ``cpu``, ``cuda``, or a GPU model
slug (``nvidia-h100-80gb-hbm3``) that wins over the generic ``cuda`` price. The compute
statement turns each run's device-hours into cost with these prices; the disclosure gate
discloses every price checked more than ``max_age_days`` ago ("price for cpu checked 13
months ago"), because a stale price silently misstates what the work cost.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.core.schema import read_toml, validate

PRICES_FILE = "prices.toml"
DEFAULT_MAX_AGE_DAYS = 180


def load_prices(project: Project) -> dict[str, Any] | None:
    """prices.toml, validated, with dates as ISO strings (None when the project has none)."""
    path = project.root / PRICES_FILE
    raw = read_toml(path)
    if raw is None:
        return None
    for entry in raw.get("prices", {}).values() if isinstance(raw.get("prices"), dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("checked"), dt.date):
            entry["checked"] = entry["checked"].isoformat()
    validate(raw, "prices", path)
    for key, entry in raw["prices"].items():
        try:
            dt.date.fromisoformat(entry["checked"])
        except ValueError:
            raise BadInputError(path, f"checked = {entry['checked']!r} is not a date (YYYY-MM-DD)",
                                field=f"prices.{key}.checked") from None
    return raw


def device_slug(name: str | None) -> str | None:
    """``NVIDIA H100 80GB HBM3`` -> ``nvidia-h100-80gb-hbm3`` (the key of a model's price)."""
    if not name:
        return None
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or None


def price_for(prices: Mapping[str, Any] | None, kind: str, name: str | None = None,
              ) -> tuple[str, Mapping[str, Any]] | None:
    """(key, price entry) for a device: its model's price first, then its kind's; None if unpriced."""
    if not prices:
        return None
    table = prices["prices"]
    for key in (device_slug(name), kind):
        if key and key in table:
            return key, table[key]
    return None


def age_text(days: int) -> str:
    """A human age: "45 days", "13 months", "2 years"."""
    if days < 60:
        return f"{days} day{'s' if days != 1 else ''}"
    months = round(days / 30.44)
    if months < 24:
        return f"{months} months"
    return f"{round(days / 365.25)} years"


def stale_prices(prices: Mapping[str, Any] | None, today: dt.date | None = None,
                 ) -> list[dict[str, Any]]:
    """Every price checked more than ``max_age_days`` ago, with its age, sorted by key."""
    if not prices:
        return []
    today = today or dt.date.today()
    limit = int(prices.get("max_age_days", DEFAULT_MAX_AGE_DAYS))
    found = []
    for key, entry in sorted(prices["prices"].items()):
        age = (today - dt.date.fromisoformat(entry["checked"])).days
        if age > limit:
            found.append({"key": key, "checked": entry["checked"], "age_days": age, "age": age_text(age),
                          "max_age_days": limit, "source": entry["source"],
                          "per_hour": entry["per_hour"], "currency": entry["currency"]})
    return found


def format_money(amount: float | None, currency: str | None) -> str:
    """``0.0123 USD`` with enough digits for small amounts (a CPU run costs fractions of a cent)."""
    if amount is None or currency is None:
        return "n/a"
    if amount == 0:
        return f"0 {currency}"
    if amount >= 1:
        return f"{amount:.2f} {currency}"
    digits = min(6, max(2, 2 - int(f"{amount:e}".split("e")[1])))  # three significant digits
    return f"{amount:.{digits}f}".rstrip("0").rstrip(".") + f" {currency}"
