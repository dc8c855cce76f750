"""Vendor-demo protocol: usage rules mined from the SDK vendor's own example projects (BG4xx).

``projects`` finds the examples and reads their IDE project files, ``protocol`` models one
program's API events and step keys, ``mine`` keeps the steps every example agrees on,
``index`` builds and caches the index (``DEMOS.json``), ``check`` holds a program to it.
"""
