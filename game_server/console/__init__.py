"""The operator's console: a browser page for the casino floor (issue 21, docs/design.md "The
floor").

A ``twisted.web`` application over HTTPS (TLS 1.3 only) that talks to each table server as
the operator over the same mutual-TLS AMP as every operator tool, and reads the servers'
event logs for recall, verification and reports. People sign in with a password (scrypt)
and, for supervisors, a one-time code (RFC 6238); what each may see and do is their role's
(:mod:`game_server.console.roles`). Every action goes into the table's event log with the
person and role (``operator_action``) and into the console's own append-only audit log,
each line signed with the console's key.

Modules: :mod:`~game_server.console.totp` (one-time codes), :mod:`~game_server.console.accounts`
(people, passwords), :mod:`~game_server.console.audit` (the audit log),
:mod:`~game_server.console.roles` (who may do what), :mod:`~game_server.console.settings` (the
servers file), :mod:`~game_server.console.links` (AMP to the table servers),
:mod:`~game_server.console.source` (where logs are read: :class:`FloorSource`),
:mod:`~game_server.console.reports` (605a.5(d) meters per table and shift),
:mod:`~game_server.console.web` (pages, sessions, CSRF), :mod:`~game_server.console.service`
(``etg console``).
"""
