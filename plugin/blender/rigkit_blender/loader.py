# Loading librigkit_plugin.so for the add-on: where it is looked for, what the panel and the
# preferences show about it, and the import helper that ships beside it.
import os
import stat

from . import abi

HERE = os.path.dirname(os.path.abspath(__file__))
HELPER_NAME = "rigkit-import-helper"
# The loaded plugin, or why none loaded; the last batch's outcome (for the panel and tests).
STATE = {"plugin": None, "error": "", "path": "", "last_batch": None}


def _prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def make_helper_executable(folder):
    """Blender installs add-ons from a zip without file modes: give the import helper shipped
    beside the plugin its execute bit back (the plugin only starts an executable file)."""
    helper = os.path.join(folder, HELPER_NAME)
    try:
        mode = os.stat(helper).st_mode
        if not mode & stat.S_IXUSR:
            os.chmod(helper, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError:
        pass  # no helper here (another build's folder), or read-only: the plugin says so


def get_plugin(context, reload=False):
    """The loaded plugin, trying the preference path, the add-on's folder, $RIGKIT_PLUGIN and the
    system loader in that order. Raises abi.RigkitError with every reason when none loads."""
    if STATE["plugin"] is not None and not reload:
        return STATE["plugin"]
    prefs = _prefs(context)
    preferred = prefs.library_path if prefs else ""
    reasons = []
    for path in abi.find_library(preferred, HERE):
        if os.sep in path and not os.path.exists(path):
            reasons.append("%s: no such file" % path)
            continue
        if os.sep in path:
            make_helper_executable(os.path.dirname(os.path.abspath(path)))
        try:
            plugin = abi.load(path)
        except abi.RigkitError as e:  # found, but refused (ABI or layout)
            reasons.append(e.message)
            continue
        except OSError as e:
            reasons.append(str(e))
            continue
        STATE.update(plugin=plugin, error="", path=plugin.path)
        return plugin
    STATE.update(plugin=None, error="; ".join(reasons), path="")
    raise abi.RigkitError(-1, "load", "cannot load %s: %s" % (abi.LIBRARY_NAME, STATE["error"]))
