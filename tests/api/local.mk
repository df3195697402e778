# tests/api: what libhrelay.so offers the programs it is preloaded into.
#   exports.sh  the library exports exactly its intended symbols (nm -D), per MPI family: a
#               symbol added or missing fails
TESTS += tests/api/exports.sh
EXTRA_DIST += tests/api/exports.sh
