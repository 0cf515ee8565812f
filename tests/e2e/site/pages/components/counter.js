// A classic script: every [data-counter] button counts its clicks.
document.querySelectorAll("[data-counter]").forEach((button) => {
  let count = 0;
  button.addEventListener("click", () => { count += 1; button.textContent = "clicked " + count; });
});
