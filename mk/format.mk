# mk/format.mk: source formatting.
#
#   make format        clang-format (the repository's .clang-format) over
#                      every C source and header of ext/, tests/ and
#                      contrib/, in place
#   make format-check  the same as a check: lists the files that would
#                      change and fails if there are any (nothing written)

FORMAT_SRC = $(wildcard ext/*.[ch] tests/*.[ch] tests/*/*.[ch] \
                        contrib/*/*.[ch])
CLANG_FORMAT ?= clang-format

.PHONY: format format-check

## format: clang-format every C source and header of ext/, tests/, contrib/ in place
format:
	@sh tests/deps.sh clang-format
	$(CLANG_FORMAT) -i $(FORMAT_SRC)

## format-check: list the C files clang-format would change; fail if any
format-check:
	@sh tests/deps.sh clang-format
	@bad=""; for f in $(FORMAT_SRC); do \
	  $(CLANG_FORMAT) "$$f" | cmp -s - "$$f" || bad="$$bad $$f"; \
	done; \
	if [ -n "$$bad" ]; then echo "not formatted:$$bad"; exit 1; fi; \
	echo "format-check: all formatted"
