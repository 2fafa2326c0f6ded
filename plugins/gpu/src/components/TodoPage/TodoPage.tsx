import { Progress } from '@backstage/core-components';
import {
  useApi,
  fetchApiRef,
} from '@backstage/frontend-plugin-api';
import { Header, Container } from '@backstage/ui';
import useAsync from 'react-use/esm/useAsync';
import { TodoList } from '../TodoList';
import type { TodoItem } from '../TodoList';

const exampleTodos: TodoItem[] = [
  { id: '1', title: 'Install the backend plugin', createdBy: 'user:default/guest', createdAt: new Date().toISOString() },
  { id: '2', title: 'Connect the frontend to real data', createdBy: 'user:default/guest', createdAt: new Date().toISOString() },
];

// TEMPLATE NOTE:
// This is a simple example of fetching data from the backend plugin.
// You can replace this with your own data fetching logic or use a
// generated client from an OpenAPI schema.
function useTodos() {
  const { fetch } = useApi(fetchApiRef);

  return useAsync(async (): Promise<TodoItem[]> => {
    const response = await fetch(`plugin://gpu/todos`);

    if (!response.ok) {
      throw new Error(
        `Failed to fetch todos: ${response.status} ${response.statusText}`,
      );
    }

    const data = await response.json();
    return data.items;
  }, [fetch]);
}

export const TodoPage = () => {
  const { value: todos, loading, error } = useTodos();

  if (loading) {
    return <Progress />;
  }

  return (
    <>
      <Header title="Welcome to gpu!" />
      <Container>
        <TodoList todos={error ? exampleTodos : (todos ?? [])} />
      </Container>
    </>
  );
};
