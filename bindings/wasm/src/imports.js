// imports.js: the functions sqlite.c imports from JavaScript, declared for
// emcc's linker (--js-library); sqlite.js supplies them at instantiation.
mergeInto(LibraryManager.library, {
  ckw_random: function () {},
  ckw_now: function () {},
});
