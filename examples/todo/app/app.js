// A small todo app: todos come from /api/todos.json, users from /api/users.json.

// Who is signed in: read once, when the app starts, from localStorage (where a real app keeps
// its token), so a test signs in by setting it before the app's scripts run.
const signedIn = localStorage.getItem("user");
document.getElementById("who").textContent = signedIn ? `Signed in as ${signedIn}` : "Not signed in";

const list = document.getElementById("todos");
const count = document.getElementById("count");
const toast = document.getElementById("toast");
let todos = [];

function render() {
  const hideDone = document.getElementById("hide-done").checked;
  list.innerHTML = "";
  for (const todo of todos) {
    if (hideDone && todo.done) continue;
    const li = document.createElement("li");
    li.className = "todo" + (todo.done ? " done" : "");
    li.dataset.id = String(todo.id);
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = todo.done;
    box.addEventListener("change", () => { todo.done = box.checked; render(); });
    li.append(box, " ", todo.title);
    list.append(li);
  }
  const left = todos.filter((t) => !t.done).length;
  count.textContent = `${left} item${left === 1 ? "" : "s"} left`;
}

function show(message) {
  toast.textContent = message;
  toast.classList.remove("hidden");
}

document.getElementById("new-todo").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("title");
  const title = input.value.trim();
  if (!title) return;
  todos.push({ id: Date.now(), title, done: false });
  input.value = "";
  render();
  show(`Added "${title}"`);
});

document.getElementById("hide-done").addEventListener("change", render);

document.getElementById("load-users").addEventListener("click", async () => {
  const users = document.getElementById("users");
  const error = document.getElementById("users-error");
  users.innerHTML = "";
  try {
    const response = await fetch("/api/users.json");
    if (!response.ok) throw new Error(String(response.status));
    for (const user of await response.json()) {
      const li = document.createElement("li");
      li.className = "user";
      li.textContent = user.name;
      users.append(li);
    }
    error.classList.add("hidden");
  } catch (e) {
    error.classList.remove("hidden");
  }
});

fetch("/api/todos.json")
  .then((r) => r.json())
  .then((data) => { todos = data; render(); });
