"""The repository's address, from one place (``repository.url`` in _config.yml).

The footer's licence links name it as ``{repository.url}`` (and the branch as
``{repository.branch}``), and get it from there. Until the book has a public home the
address is a placeholder (``YOUR-GITHUB-USER``), and every link made from it would be dead
(the launch, repository and issue buttons, the footer's licence links): then none is made,
and the footer names the licence files without linking them. A release build
(``RELEASE=1 make book``) refuses the placeholder.
"""

import os
import re

from sphinx.errors import ConfigError

PLACEHOLDER = "YOUR-GITHUB-USER"
REPOSITORY_BUTTONS = ("use_repository_button", "use_issues_button", "use_source_button",
                      "use_edit_page_button")
LINK_TO_REPOSITORY = re.compile(r'<a href="\{repository\.url\}[^"]*">(.*?)</a>', re.S)


def published(options):
    return PLACEHOLDER not in (options.get("repository_url") or "")


def fill_footer(app, config):
    options = config.html_theme_options
    footer = options.get("extra_footer") or ""
    if not published(options):
        if os.environ.get("RELEASE"):
            raise ConfigError(
                f"repository.url in _config.yml is still the placeholder ({PLACEHOLDER}): "
                "set it to the book's repository before a release (README, 'Publish the "
                "book')")
        for key in REPOSITORY_BUTTONS:
            options[key] = False
        launch = dict(options.get("launch_buttons") or {})
        # Binder and a JupyterHub's git-pull both fetch the repository from its address.
        launch["binderhub_url"] = launch["jupyterhub_url"] = ""
        options["launch_buttons"] = launch
        footer = LINK_TO_REPOSITORY.sub(r"\1", footer)
    options["extra_footer"] = (
        footer.replace("{repository.url}", options.get("repository_url", ""))
        .replace("{repository.branch}", options.get("repository_branch") or "main"))


def setup(app):
    app.connect("config-inited", fill_footer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
