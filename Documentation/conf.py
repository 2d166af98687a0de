# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of the project's documentation: "make htmldocs"
# builds it into .cache/htmldocs with every warning an error.

project = 'hicn-psock'
copyright = 'the hicn-psock authors; GPL-2.0'
author = 'the hicn-psock authors'

import os

_top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    with open(os.path.join(_top, 'VERSION')) as f:
        release = f.read().strip()
except OSError:
    release = 'unreleased'
version = release

root_doc = 'index'
master_doc = 'index'
extensions = []
exclude_patterns = ['_build', 'man', 'netlink', 'images/*.gp']
highlight_language = 'none'
html_theme = 'alabaster'
html_static_path = []
html_show_sourcelink = False
nitpicky = True
