# src/exec rules
