"""The pygame touchscreen player terminal (built by the [terminal] issue)."""
