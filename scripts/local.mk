# scripts rules
