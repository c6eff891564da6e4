"""Settings, platform paths, secrets and trust.

Import the submodules (``gemtui.config.settings``…): this package imports nothing, so
reading a path or the trust list before the first frame never loads pydantic.
"""
