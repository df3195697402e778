# src/shim rules
