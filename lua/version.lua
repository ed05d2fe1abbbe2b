-- The version string shown by `verbsh --version` and verbs._VERSION.
return "verbsh 0.1.0"
