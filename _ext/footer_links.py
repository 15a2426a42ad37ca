"""Fill the repository's address into the footer (``html.extra_footer`` in _config.yml).

The address lives in one place, ``repository.url``. The footer's licence links name it as
``{repository.url}`` (and the branch as ``{repository.branch}``), and get it from there.
"""


def fill_footer(app, config):
    options = config.html_theme_options
    footer = options.get("extra_footer") or ""
    options["extra_footer"] = (
        footer.replace("{repository.url}", options.get("repository_url", ""))
        .replace("{repository.branch}", options.get("repository_branch") or "main"))


def setup(app):
    app.connect("config-inited", fill_footer)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
