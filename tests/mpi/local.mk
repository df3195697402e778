# tests/mpi rules
