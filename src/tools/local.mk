# src/tools rules
