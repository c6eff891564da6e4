"""Settings, platform paths and secrets."""

from gemtui.config.paths import config_dir, data_dir, log_dir, user_config_file
from gemtui.config.secrets import delete_secret, get_secret, keyring_available, set_secret
from gemtui.config.settings import ProviderSettings, Settings, load_settings

__all__ = [
    "ProviderSettings",
    "Settings",
    "config_dir",
    "data_dir",
    "delete_secret",
    "get_secret",
    "keyring_available",
    "load_settings",
    "log_dir",
    "set_secret",
    "user_config_file",
]
