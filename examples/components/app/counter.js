// An ES module, served by the front end's dev server (see runner/plugins/index.py).
export function mountCounter(root, start = 0) {
  let count = start;
  const button = document.createElement("button");
  const render = () => { button.textContent = `count: ${count}`; };
  button.addEventListener("click", () => { count += 1; render(); });
  render();
  root.append(button);
}

const target = document.querySelector("[data-counter]");
if (target) mountCounter(target, Number(target.dataset.start || 0));
