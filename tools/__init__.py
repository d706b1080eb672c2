"""Operator and investigator commands behind the one ``etg`` command."""
