"""Which model Arbor talks to: Anthropic when a key is configured, the offline model otherwise.

The app never needs a network to start (DESIGN.md §6): without a key every request goes to the
deterministic offline provider, and the window says so.
"""

from __future__ import annotations

from desktop_app.llm.deferred import DeferredProvider
from desktop_app.llm.keys import InvalidApiKeyError, get_api_key
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.protocol import Provider
from desktop_app.settings import Settings


def make_provider(
    settings: Settings,
    *,
    base_url: str | None = None,
    model_id: str | None = None,
    offline_on_invalid_key: bool = False,
) -> Provider:
    """The provider for these settings; ``base_url``/``model_id`` override the settings' values.

    A key that cannot be used (a control character inside) raises :class:`InvalidApiKeyError`, or with
    ``offline_on_invalid_key`` gives the offline model and a line in ``settings.warnings`` (the window).
    """
    wants_offline = settings.provider == "offline" or model_id == "offline"
    try:
        key = None if wants_offline else get_api_key()
    except InvalidApiKeyError as exc:
        if not offline_on_invalid_key:
            raise
        # The window still starts (on the offline model) and says why; the message never holds the key.
        settings.warnings.append(f"{exc} Using the offline model.")
        key = None
    if key is None:
        return OfflineProvider()
    from desktop_app.llm.catalog import DEFAULT_MODEL_ID, get_model

    chosen = model_id or settings.model or DEFAULT_MODEL_ID
    url = base_url or settings.base_url

    def build() -> Provider:
        from desktop_app.llm.anthropic import AnthropicProvider

        network = settings.network
        return AnthropicProvider(
            base_url=url,
            model_id=chosen,
            connect_timeout=network.connect_timeout_ms / 1000,
            idle_timeout=network.idle_timeout_ms / 1000,
        )

    # The SDK is imported on first use (or by the app's warm-up after the window shows), not here.
    return DeferredProvider("desktop_app.llm.anthropic", build, get_model(chosen))
